import { describe, expect, it } from 'vitest';
import { canonicalJson, toolDefinitionHash } from '../../../src/host/catalog/definition-hash.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, 'x', null])).toBe('[null,"x",null]');
    expect(canonicalJson('quote " inside')).toBe(JSON.stringify('quote " inside'));
  });

  it('agrees with JSON.stringify on values whose keys are already sorted', () => {
    const v = { a: [1, 2, { b: true, c: 'x' }], d: { e: null } };
    expect(canonicalJson(v)).toBe(JSON.stringify(v));
  });
});

describe('toolDefinitionHash', () => {
  it('changes with what the model is told, not with unrelated fields', () => {
    const base = { name: 't', description: 'd', inputSchema: { type: 'object' } };
    const h = toolDefinitionHash(base);
    expect(toolDefinitionHash({ ...base, description: 'other' })).not.toBe(h);
    expect(toolDefinitionHash({ ...base, _meta: { x: 1 } } as typeof base)).toBe(h);
  });
});
