import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { toProviderSchema } from '../../../src/agents/adapters/provider-schema.js';
import { isSwitchboardError } from '../../../src/core/errors.js';

type Schema = Record<string, unknown>;

const ROOT_KEYWORDS_OPENAI_REFUSES = ['anyOf', 'oneOf', 'allOf', 'not', 'enum'];

function valid(schema: Schema, samples: readonly unknown[]): boolean[] {
  const check = new AjvJsonSchemaValidator().getValidator(schema as never);
  return samples.map((s) => check(s).valid);
}

/** Every sample the original accepts, the adapted schema accepts too (it may accept more). */
function expectSuperset(original: Schema, adapted: Schema, samples: readonly unknown[]): void {
  const before = valid(original, samples);
  const after = valid(adapted, samples);
  expect(before).toContain(true);
  samples.forEach((sample, i) => {
    if (before[i]) expect(after[i], JSON.stringify(sample)).toBe(true);
  });
}

function expectProviderRoot(schema: Schema): void {
  expect(schema.type).toBe('object');
  expect(schema.properties).toBeTypeOf('object');
  for (const keyword of ROOT_KEYWORDS_OPENAI_REFUSES) expect(schema).not.toHaveProperty(keyword);
}

describe('toProviderSchema', () => {
  it('turns a missing or non-object schema into the empty parameter list', () => {
    expect(toProviderSchema(undefined, 't')).toEqual({ type: 'object', properties: {} });
    expect(toProviderSchema(null, 't')).toEqual({ type: 'object', properties: {} });
    expect(toProviderSchema({ type: 'object' }, 't')).toEqual({ type: 'object', properties: {} });
  });

  it('makes the root an object schema', () => {
    expect(toProviderSchema({ properties: { a: { type: 'string' } } }, 't')).toEqual({
      properties: { a: { type: 'string' } },
      type: 'object',
    });
    expect(toProviderSchema({ type: ['object', 'null'], properties: {} }, 't').type).toBe('object');
  });

  it('refuses a root that is not an object, naming the tool', () => {
    try {
      toProviderSchema({ type: 'string' }, 'mcp__x__echo');
      expect.unreachable();
    } catch (error) {
      expect(isSwitchboardError(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as Error).message).toContain('mcp__x__echo');
    }
  });

  it('keeps only the names of a malformed required list', () => {
    const out = toProviderSchema({ type: 'object', properties: { a: {} }, required: ['a', 3, null] }, 't');
    expect(out.required).toEqual(['a']);
  });

  it('merges a root anyOf of objects into one object, requiring what every branch requires', () => {
    const schema = {
      type: 'object',
      description: 'Find by id or by name',
      properties: { limit: { type: 'integer' } },
      anyOf: [
        {
          type: 'object',
          properties: { id: { type: 'integer' }, kind: { const: 'id' } },
          required: ['id', 'kind'],
        },
        {
          type: 'object',
          properties: { name: { type: 'string' }, kind: { const: 'name' } },
          required: ['name', 'kind'],
        },
      ],
    };
    const out = toProviderSchema(schema, 't');
    expectProviderRoot(out);
    expect(out.description).toBe('Find by id or by name');
    expect(out.properties).toEqual({
      limit: { type: 'integer' },
      id: { type: 'integer' },
      name: { type: 'string' },
      kind: { anyOf: [{ const: 'id' }, { const: 'name' }] },
    });
    expect(out.required).toEqual(['kind']);
    expectSuperset(schema, out, [
      { id: 1, kind: 'id' },
      { name: 'a', kind: 'name', limit: 3 },
      { kind: 'id' },
      { id: 'x', kind: 'id' },
      {},
    ]);
  });

  it('follows $ref branches of a root oneOf and skips branches that are not objects', () => {
    const schema = {
      oneOf: [{ $ref: '#/$defs/ByPath' }, { $ref: '#/$defs/ByUrl' }, { type: 'null' }],
      $defs: {
        ByPath: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
          additionalProperties: false,
        },
        ByUrl: {
          type: 'object',
          properties: { url: { type: 'string', format: 'uri' } },
          required: ['url'],
          additionalProperties: false,
        },
      },
    };
    const out = toProviderSchema(schema, 't');
    expectProviderRoot(out);
    expect(out.properties).toEqual({ path: { type: 'string' }, url: { type: 'string', format: 'uri' } });
    expect(out.required).toBeUndefined();
    expect(out.additionalProperties).toBe(false);
    expectSuperset(schema, out, [
      { path: '/a' },
      { url: 'https://x.test' },
      { path: '/a', url: 'https://x' },
      { other: 1 },
    ]);
  });

  it('merges a root allOf: every property and every requirement', () => {
    const schema = {
      type: 'object',
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { a: { maxLength: 3 }, b: { type: 'number' } }, required: ['b'] },
      ],
    };
    const out = toProviderSchema(schema, 't');
    expectProviderRoot(out);
    expect(out.properties).toEqual({
      a: { allOf: [{ type: 'string' }, { maxLength: 3 }] },
      b: { type: 'number' },
    });
    expect(out.required).toEqual(['a', 'b']);
    // Here the merge is exact: same outcome for every sample.
    const samples = [{ a: 'x', b: 1 }, { a: 'long', b: 1 }, { a: 'x' }, { b: 1 }, { a: 1, b: 1 }];
    expect(valid(out, samples)).toEqual(valid(schema, samples));
  });

  it('drops not, enum and const at the root and leaves nested combinators alone', () => {
    const nested = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    const schema = {
      type: 'object',
      properties: { v: nested },
      not: { required: ['w'] },
      enum: [{ v: 'a' }],
      const: { v: 'a' },
    };
    const out = toProviderSchema(schema, 't');
    expect(out).toEqual({ type: 'object', properties: { v: nested } });
  });

  it('does not modify its input', () => {
    const schema = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }] };
    const copy = structuredClone(schema);
    toProviderSchema(schema, 't');
    expect(schema).toEqual(copy);
  });
});
