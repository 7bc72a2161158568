import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { compactDescription, compactSchema } from '../../../src/agents/adapters/compact-schema.js';

type Schema = Record<string, unknown>;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** Validity of each sample under `schema`, with the SDK's validator (it picks the engine by `$schema`). */
function outcomes(schema: Schema, samples: readonly unknown[]): boolean[] {
  const check = new AjvJsonSchemaValidator().getValidator(schema as never);
  return samples.map((sample) => check(sample).valid);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** A FastMCP/pydantic-style schema: root title, titled properties, `$defs`, nullable `anyOf`. */
const pydanticStyle = (): Schema => ({
  $schema: DRAFT_07,
  title: 'search_issuesArguments',
  type: 'object',
  properties: {
    query: { title: 'Query', type: 'string', minLength: 1, description: 'Search   text.  ' },
    state: { title: 'State', $ref: '#/definitions/State' },
    labels: { title: 'Labels', type: 'array', items: { $ref: '#/definitions/Label' }, maxItems: 5 },
    since: {
      title: 'Updated since',
      anyOf: [{ type: 'string' }, { type: 'null' }],
      format: 'date-time',
      default: null,
    },
    page_size: { title: 'Page Size', type: 'integer', minimum: 1, maximum: 100, default: 30 },
  },
  required: ['query'],
  additionalProperties: false,
  definitions: {
    State: { title: 'State', type: 'string', enum: ['open', 'closed'] },
    Label: {
      title: 'Label',
      type: 'object',
      properties: { name: { $ref: '#/definitions/Name' } },
      required: ['name'],
    },
    Name: { type: 'string', pattern: '^[a-z]+$' },
    Unused: { type: 'object', properties: { deep: { $ref: '#/definitions/OnlyFromUnused' } } },
    OnlyFromUnused: { type: 'string' },
  },
});

describe('compactSchema', () => {
  it('keeps validation outcomes identical on a pydantic-style schema', () => {
    const samples = [
      { query: 'bug' },
      { query: '' },
      { query: 'bug', state: 'open', labels: [{ name: 'ui' }], since: null, page_size: 10 },
      { query: 'bug', state: 'merged' },
      { query: 'bug', labels: [{ name: 'UI' }] },
      { query: 'bug', labels: [{}] },
      { query: 'bug', labels: [1, 2, 3, 4, 5, 6] },
      { query: 'bug', since: 42 },
      { query: 'bug', page_size: 0 },
      { query: 'bug', page_size: 1.5 },
      { query: 'bug', extra: true },
      {},
      [],
      'bug',
    ];
    const original = pydanticStyle();
    const compacted = compactSchema(original, { toolName: 'mcp__gh__search_issues' });
    const before = outcomes(original, samples);
    expect(before).toContain(true);
    expect(before).toContain(false);
    expect(outcomes(compacted, samples)).toEqual(before);
    expect(JSON.stringify(compacted).length).toBeLessThan(JSON.stringify(original).length);
  });

  it('removes definitions no $ref reaches, transitively, and keeps the reached ones', () => {
    const out = compactSchema(pydanticStyle());
    expect(Object.keys(out.definitions as Schema).sort()).toEqual(['Label', 'Name', 'State']);
  });

  it('drops the definitions container once nothing in it is reached', () => {
    const out = compactSchema({
      type: 'object',
      properties: { a: { type: 'string' } },
      $defs: { A: { type: 'string' }, B: { $ref: '#/$defs/A' } },
    });
    expect(out).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('follows escaped pointers and survives reference cycles', () => {
    const out = compactSchema({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/a~1b%20c' } },
      $defs: {
        'a/b c': {
          type: 'object',
          properties: { child: { $ref: '#/$defs/a~1b%20c' }, leaf: { $ref: '#/$defs/Leaf' } },
        },
        Leaf: { type: 'string' },
        Loop: { $ref: '#/$defs/Loop' },
      },
    });
    expect(Object.keys(out.$defs as Schema).sort()).toEqual(['Leaf', 'a/b c']);
  });

  it('keeps every definition when a reference cannot be followed safely', () => {
    const defs = { A: { $anchor: 'a', type: 'string' }, B: { type: 'number' } };
    for (const ref of ['#a', 'other.json#/$defs/B', '#/$defs']) {
      const out = compactSchema({ type: 'object', properties: { x: { $ref: ref } }, $defs: defs });
      expect(Object.keys(out.$defs as Schema), ref).toEqual(['A', 'B']);
    }
    const dynamic = compactSchema({
      type: 'object',
      properties: { x: { $dynamicRef: '#node' } },
      $defs: defs,
    });
    expect(Object.keys(dynamic.$defs as Schema)).toEqual(['A', 'B']);
  });

  it('drops a root $id only when every reference is a local pointer', () => {
    expect(compactSchema({ $id: 'https://x.test/s', type: 'object' })).toEqual({ type: 'object' });
    const relative = { $id: 'https://x.test/s', type: 'object', properties: { a: { $ref: 'other.json' } } };
    expect(compactSchema(relative).$id).toBe('https://x.test/s');
  });

  it('keeps $schema when the dialect changes what the schema means', () => {
    const tuple = {
      $schema: DRAFT_07,
      type: 'object',
      properties: { p: { type: 'array', items: [{ type: 'string' }] } },
    };
    expect(compactSchema(tuple).$schema).toBe(DRAFT_07);
    const refSibling = {
      $schema: DRAFT_07,
      type: 'object',
      properties: { p: { $ref: '#/definitions/S', maxLength: 3 } },
      definitions: { S: { type: 'string' } },
    };
    expect(compactSchema(refSibling).$schema).toBe(DRAFT_07);
    const annotatedRef = { ...refSibling, properties: { p: { $ref: '#/definitions/S', description: 'd' } } };
    expect(compactSchema(annotatedRef).$schema).toBeUndefined();
    const custom = { $schema: 'https://example.test/meta', type: 'object' };
    expect(compactSchema(custom).$schema).toBe('https://example.test/meta');
  });

  it('drops titles that repeat their key and keeps titles that add words', () => {
    const out = compactSchema({
      type: 'object',
      properties: {
        file_path: { title: 'File Path', type: 'string' },
        pageSize: { title: 'page-size', type: 'integer' },
        since: { title: 'Updated since', type: 'string' },
        mode: { $ref: '#/$defs/Mode' },
      },
      $defs: { Mode: { title: 'mode', enum: ['a'] } },
      required: ['file_path'],
    });
    expect(out.properties).toEqual({
      file_path: { type: 'string' },
      pageSize: { type: 'integer' },
      since: { title: 'Updated since', type: 'string' },
      mode: { $ref: '#/$defs/Mode' },
    });
    expect(out.$defs).toEqual({ Mode: { enum: ['a'] } });
  });

  it('drops a root title that only repeats the tool name', () => {
    const schema = (title: string) => ({ title, type: 'object', properties: {} });
    expect(
      compactSchema(schema('read_fileArguments'), { toolName: 'mcp__fs__read_file' }).title,
    ).toBeUndefined();
    expect(compactSchema(schema('Input'), { toolName: 'mcp__fs__read_file' }).title).toBeUndefined();
    expect(compactSchema(schema('Search options'), { toolName: 'mcp__fs__read_file' }).title).toBe(
      'Search options',
    );
    expect(compactSchema(schema('read_fileArguments')).title).toBe('read_fileArguments');
  });

  it('compacts blanks in descriptions but never touches data values', () => {
    const out = compactSchema({
      type: 'object',
      description: '  Lists   files.\r\n\r\n\r\n  * nested   item \n',
      properties: {
        description: { type: 'string', description: 'a\t\tb', default: 'x   y' },
        mode: { enum: ['a   b', { description: '  keep  ' }], examples: [{ title: 'Mode' }] },
        opts: { type: 'object', default: { description: ' s  p ' }, const: { title: 'opts' } },
      },
    });
    expect(out.description).toBe('Lists files.\n\n  * nested item');
    const props = out.properties as Record<string, Schema>;
    expect(props.description).toEqual({ type: 'string', description: 'a b', default: 'x   y' });
    expect(props.mode).toEqual({
      enum: ['a   b', { description: '  keep  ' }],
      examples: [{ title: 'Mode' }],
    });
    expect(props.opts).toEqual({
      type: 'object',
      default: { description: ' s  p ' },
      const: { title: 'opts' },
    });
  });

  it('drops $comment, empty required, default-valued additionalProperties and undefined keys', () => {
    const out = compactSchema({
      type: 'object',
      $comment: 'for maintainers',
      properties: {
        a: { type: 'object', additionalProperties: true, required: [], default: undefined },
        b: { type: 'object', additionalProperties: {} },
        c: { type: 'object', additionalProperties: false, required: ['x'] },
      },
    });
    expect(out).toEqual({
      type: 'object',
      properties: {
        a: { type: 'object' },
        b: { type: 'object' },
        c: { type: 'object', additionalProperties: false, required: ['x'] },
      },
    });
  });

  it('keeps additionalProperties: true where unevaluatedProperties can see it', () => {
    const schema = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } }, additionalProperties: true }],
      unevaluatedProperties: false,
    };
    const out = compactSchema(schema);
    expect((out.allOf as Schema[])[0]).toEqual(schema.allOf[0]);
    const samples = [{ a: 'x' }, { a: 'x', b: 1 }, { a: 1 }];
    expect(outcomes(out, samples)).toEqual(outcomes(schema, samples));
  });

  it('writes an anyOf of bare types as a type list, and only then', () => {
    const out = compactSchema({
      type: 'object',
      properties: {
        a: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'optional' },
        b: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }] },
        c: { type: 'string', anyOf: [{ type: 'string' }] },
        d: { anyOf: [{ type: 'string', $comment: 'x' }] },
      },
    });
    const props = out.properties as Record<string, Schema>;
    expect(props.a).toEqual({ description: 'optional', type: ['string', 'null'] });
    expect(props.b).toEqual({ anyOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }] });
    expect(props.c).toEqual({ type: 'string', anyOf: [{ type: 'string' }] });
    expect(props.d).toEqual({ type: 'string' });
    const samples = [{ a: 'x' }, { a: null }, { a: 3 }, { b: 'abc' }, { b: null }];
    const source = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } };
    expect(outcomes(compactSchema(source), samples)).toEqual(outcomes(source, samples));
  });

  it('keeps descriptions, enums, formats, defaults, examples and constraints', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 9007199254740991, multipleOf: 1, description: 'Count' },
        s: { type: 'string', format: 'uri', pattern: '^h', enum: ['http://a'], default: 'http://a' },
        l: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true, examples: [['a']] },
        o: { type: 'object', propertyNames: { maxLength: 3 }, minProperties: 1, deprecated: true },
      },
      required: ['n'],
    };
    expect(compactSchema(schema)).toEqual(schema);
  });

  it('does not modify its input', () => {
    const input = deepFreeze(pydanticStyle());
    const copy = structuredClone(input);
    compactSchema(input, { toolName: 'search_issues' });
    expect(input).toEqual(copy);
  });
});

describe('compactDescription', () => {
  it('keeps line structure and indentation, trims the rest', () => {
    expect(compactDescription('a  b\t c  \n\n\n\n    - x   y\n')).toBe('a b c\n\n    - x y');
    expect(compactDescription('')).toBe('');
  });
});
