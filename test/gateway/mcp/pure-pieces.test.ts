import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { exposedPrompts, exposedTools } from '../../../src/gateway/mcp/exposed-names.js';
import { IdempotencyCache } from '../../../src/gateway/mcp/idempotency.js';
import { checkInputCaps } from '../../../src/gateway/mcp/input-caps.js';
import { buildCatalog } from '../../../src/host/catalog/catalog.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });

describe('exposed names', () => {
  const catalog = buildCatalog([
    { server: 'a', tools: [tool('read'), tool('only_a')], prompts: [{ name: 'p' }, { name: 'solo' }] },
    { server: 'b', tools: [tool('read')], prompts: [{ name: 'p' }] },
  ]);

  it('namespaces everything, or passes unique names through and namespaces the colliding ones', () => {
    // Servers in name order, each server's tools in the order the server listed them.
    expect([...exposedTools(catalog.tools, 'namespaced').keys()]).toEqual([
      'mcp__a__read',
      'mcp__a__only_a',
      'mcp__b__read',
    ]);
    const passthrough = exposedTools(catalog.tools, 'passthrough-unique');
    expect([...passthrough.keys()].sort()).toEqual(['mcp__a__read', 'mcp__b__read', 'only_a']);
    expect(passthrough.get('only_a')?.server).toBe('a');
    expect([...exposedPrompts(catalog.prompts, 'passthrough-unique').keys()].sort()).toEqual([
      'mcp__a__p',
      'mcp__b__p',
      'solo',
    ]);
  });
});

describe('checkInputCaps', () => {
  const limits = { argumentBytes: 100, depth: 3, stringLength: 10 };
  it('accepts arguments within the limits and names the one exceeded', () => {
    expect(checkInputCaps({ a: 'short', b: [1, 2] }, limits)).toBeUndefined();
    expect(checkInputCaps({ a: 'x'.repeat(11) }, limits)).toMatch(/11 characters long; the limit is 10/);
    expect(checkInputCaps({ a: { b: { c: { d: 1 } } } }, limits)).toMatch(/deeper than 3/);
    expect(checkInputCaps({ a: 'y'.repeat(9), b: 'z'.repeat(9), c: Array(50).fill(1) }, limits)).toMatch(
      /bytes; the gateway accepts at most 100/,
    );
  });

  it('walks a very deep value without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(checkInputCaps(deep, { argumentBytes: 10_000_000, depth: 32, stringLength: 10 })).toMatch(
      /deeper/,
    );
  });
});

describe('IdempotencyCache', () => {
  it('runs once per principal and key within the TTL, and again after it or after a failure', async () => {
    let now = 0;
    const cache = new IdempotencyCache<number>(1_000, 100, () => now);
    let runs = 0;
    const run = async () => ++runs;
    expect(await cache.run('p', 'k', run)).toBe(1);
    expect(await cache.run('p', 'k', run)).toBe(1);
    expect(await cache.run('other', 'k', run)).toBe(2);
    now = 1_500;
    expect(await cache.run('p', 'k', run)).toBe(3);
    await expect(cache.run('p', 'bad', async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await cache.run('p', 'bad', run)).toBe(4);
  });
});
