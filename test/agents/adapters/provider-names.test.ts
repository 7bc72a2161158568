import { describe, expect, it } from 'vitest';
import { ProviderNames } from '../../../src/agents/adapters/provider-names.js';
import { isSwitchboardError } from '../../../src/core/errors.js';

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

function mapping(names: ProviderNames): Record<string, string> {
  return Object.fromEntries(names.entries());
}

describe('ProviderNames', () => {
  it('maps names that are already safe to themselves, both ways', () => {
    const names = new ProviderNames(['mcp__github__create_issue', 'activate_tools']);
    expect(names.toProvider('mcp__github__create_issue')).toBe('mcp__github__create_issue');
    expect(names.toCatalog('activate_tools')).toBe('activate_tools');
  });

  it('shortens long names to a readable prefix and a hash, and maps them back', () => {
    const long = `mcp__analytics__${'export_quarterly_revenue_report_'.repeat(3)}csv`;
    const names = new ProviderNames([long]);
    const provider = names.toProvider(long);
    expect(provider).toMatch(SAFE);
    expect(provider.length).toBe(64);
    expect(provider.startsWith('mcp__analytics__export_quarterly')).toBe(true);
    expect(provider).toMatch(/_[0-9a-f]{8}$/);
    expect(names.toCatalog(provider)).toBe(long);
  });

  it('keeps long names that share their prefix apart', () => {
    const prefix = `mcp__server__${'x'.repeat(60)}`;
    const tools = [`${prefix}_alpha`, `${prefix}_beta`, `${prefix}_gamma`];
    const names = new ProviderNames(tools);
    const provided = tools.map((t) => names.toProvider(t));
    expect(new Set(provided).size).toBe(3);
    for (const [i, p] of provided.entries()) {
      expect(p).toMatch(SAFE);
      expect(names.toCatalog(p)).toBe(tools[i]);
    }
  });

  it('sanitises characters and resolves names that meet, independent of order', () => {
    const tools = ['a.b', 'a b', 'a_b', 'ü'];
    const names = new ProviderNames(tools);
    expect(names.toProvider('a_b')).toBe('a_b'); // already safe: keeps its name
    const provided = tools.map((t) => names.toProvider(t));
    expect(new Set(provided).size).toBe(tools.length);
    for (const p of provided) expect(p).toMatch(SAFE);
    for (const t of tools) expect(names.toCatalog(names.toProvider(t))).toBe(t);
    expect(mapping(new ProviderNames([...tools].reverse()))).toEqual(mapping(names));
  });

  it('gives a safe name to an empty name', () => {
    const names = new ProviderNames(['']);
    expect(names.toProvider('')).toMatch(SAFE);
    expect(names.toCatalog(names.toProvider(''))).toBe('');
  });

  it('finds another name when the hashed one is taken by a safe tool name', () => {
    const long = `mcp__s__${'y'.repeat(80)}`;
    const first = new ProviderNames([long]).toProvider(long);
    const names = new ProviderNames([long, first]);
    expect(names.toProvider(first)).toBe(first);
    const moved = names.toProvider(long);
    expect(moved).not.toBe(first);
    expect(moved).toMatch(SAFE);
    expect(names.toCatalog(moved)).toBe(long);
  });

  it('is deterministic across instances', () => {
    const tools = ['mcp__a__b.c', `mcp__long__${'z'.repeat(70)}`, 'plain'];
    expect(mapping(new ProviderNames(tools))).toEqual(mapping(new ProviderNames(tools)));
  });

  it('honours a shorter provider limit', () => {
    const names = new ProviderNames(['mcp__github__create_issue'], { maxLength: 20 });
    const provider = names.toProvider('mcp__github__create_issue');
    expect(provider.length).toBeLessThanOrEqual(20);
    expect(provider.startsWith('mcp__github')).toBe(true);
    expect(() => new ProviderNames([], { maxLength: 4 })).toThrow(/at least/);
  });

  it('returns undefined for unknown provider names and refuses unknown catalog names', () => {
    const names = new ProviderNames(['mcp__a__b']);
    expect(names.toCatalog('mcp__a__c')).toBeUndefined();
    expect(names.toCatalog('toString')).toBeUndefined();
    try {
      names.toProvider('mcp__a__c');
      expect.unreachable();
    } catch (error) {
      expect(isSwitchboardError(error, 'NOT_FOUND')).toBe(true);
    }
  });
});
