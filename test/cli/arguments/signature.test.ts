import { describe, expect, it } from 'vitest';
import { parameterList, promptSignature, renderSignature } from '../../../src/cli/arguments/signature.js';

describe('renderSignature', () => {
  it('renders required, optional and defaulted parameters, text results', () => {
    expect(
      renderSignature({
        name: 'echo',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' }, times: { type: 'integer', default: 1 } },
          required: ['text'],
        },
      }),
    ).toBe('echo(text: string, times?: integer = 1) → text');
  });

  it('puts required parameters first and renders an output schema as the result', () => {
    expect(
      renderSignature({
        name: 'add',
        inputSchema: {
          type: 'object',
          properties: { round: { type: 'boolean' }, a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      }),
    ).toBe('add(a: number, b: number, round?: boolean) → { sum: number }');
  });

  it('renders nested objects, arrays, enums, unions and constants readably', () => {
    expect(
      renderSignature({
        name: 'search',
        inputSchema: {
          type: 'object',
          properties: {
            filter: {
              type: 'object',
              properties: {
                status: { enum: ['open', 'closed'] },
                tags: { type: 'array', items: { type: 'string' } },
                owner: { type: ['string', 'null'] },
              },
              required: ['status'],
            },
            sort: { anyOf: [{ const: 'asc' }, { const: 'desc' }] },
            ids: { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'string' }] } },
            point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
            meta: { type: 'object', additionalProperties: { type: 'string' } },
            anything: {},
            blob: { type: 'object' },
          },
        },
      }),
    ).toBe(
      'search(filter?: { status: "open" | "closed", tags?: string[], owner?: string | null }, ' +
        'sort?: "asc" | "desc", ids?: (integer | string)[], point?: [number, number], ' +
        'meta?: { [key: string]: string }, anything?: any, blob?: object) → text',
    );
  });

  it('follows $refs and shows a recursive one by its name', () => {
    const inputSchema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' }, missing: { $ref: '#/$defs/Nope' } },
      required: ['root'],
      $defs: {
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
    };
    expect(renderSignature({ name: 'tree', inputSchema })).toBe(
      'tree(root: { name?: string, children?: Node[] }, missing?: any) → text',
    );
  });

  it('cuts deep objects and long enums', () => {
    const deep = (depth: number): object =>
      depth === 0 ? { type: 'string' } : { type: 'object', properties: { x: deep(depth - 1) } };
    const letters = 'abcdefghij'.split('');
    expect(
      renderSignature({
        name: 'deep',
        inputSchema: { type: 'object', properties: { a: deep(5), e: { enum: letters } } },
      }),
    ).toBe('deep(a?: { x?: { x?: {…} } }, e?: "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | …) → text');
  });

  it('copes with a tool without an input schema', () => {
    expect(renderSignature({ name: 'ping' })).toBe('ping() → text');
  });
});

describe('parameterList', () => {
  it('lists parameters with type, required, default and description', () => {
    expect(
      parameterList({
        type: 'object',
        properties: {
          times: { type: 'integer', default: 2, description: 'How often' },
          text: { type: 'string', description: 'What' },
        },
        required: ['text'],
      }),
    ).toEqual([
      { name: 'text', type: 'string', required: true, description: 'What' },
      { name: 'times', type: 'integer', required: false, default: 2, description: 'How often' },
    ]);
  });
});

describe('promptSignature', () => {
  it('marks optional prompt arguments', () => {
    expect(
      promptSignature({ name: 'greet', arguments: [{ name: 'name', required: true }, { name: 'style' }] }),
    ).toBe('greet(name, style?)');
    expect(promptSignature({ name: 'plain' })).toBe('plain()');
  });
});
