import { describe, expect, it } from 'vitest';
import { checkInputSchema } from '../../../src/host/catalog/schema-check.js';

describe('checkInputSchema', () => {
  it('accepts object schemas, nested refs and boolean subschemas', () => {
    expect(checkInputSchema({ type: 'object' })).toBeUndefined();
    expect(
      checkInputSchema({
        type: 'object',
        properties: { tags: { type: 'array', items: { $ref: '#/$defs/tag' } }, extra: true },
        $defs: { tag: { type: 'string' } },
        additionalProperties: false,
      }),
    ).toBeUndefined();
  });

  it('names what is wrong', () => {
    expect(checkInputSchema(undefined)).toMatch(/not an object/);
    expect(checkInputSchema({ type: 'string' })).toMatch(/must have type "object"/);
    expect(checkInputSchema({ type: 'object', properties: { list: { type: 'array' } } })).toBe(
      'inputSchema.properties.list is an array without "items"',
    );
    expect(checkInputSchema({ type: 'object', properties: { x: { $ref: '#/$defs/missing' } } })).toMatch(
      /properties\.x\.\$ref "#\/\$defs\/missing" points nowhere/,
    );
    expect(checkInputSchema({ type: 'object', anyOf: 'nope' })).toMatch(/anyOf must be a list/);
  });
});
