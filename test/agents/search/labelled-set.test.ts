import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshQueries, freshServers, labelledQueries, realServers } from '../../../bench/search-quality.js';

/**
 * The labelled set `bench:tokens` reports search quality on: its split into a tune and a
 * held-out half must be the one its rule says (so nobody can move a query between halves),
 * and every label must name a real tool of the snapshots.
 */
describe('the labelled search set', () => {
  const queries = labelledQueries();
  const servers = realServers();

  it('has at least 300 distinct queries of every kind over fifteen real servers', () => {
    expect(queries.length).toBeGreaterThanOrEqual(300);
    expect(new Set(queries.map((q) => q.query)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => q.kind))).toEqual(
      new Set(['easy', 'paraphrase', 'ambiguous', 'parameter']),
    );
    expect(Object.keys(servers)).toHaveLength(15);
    for (const s of Object.values(servers)) expect(s.package !== '' && s.version !== '').toBe(true);
  });

  it('splits by the first byte of the SHA-256 of the query: even is tune, odd is held-out', () => {
    for (const q of queries) {
      const byte = createHash('sha256').update(q.query, 'utf8').digest()[0]!;
      expect({ query: q.query, half: q.half }).toEqual({
        query: q.query,
        half: byte % 2 === 0 ? 'tune' : 'held-out',
      });
    }
  });

  it('labels only tools the snapshots hold', () => {
    const known = new Set(
      Object.entries(servers).flatMap(([server, s]) => s.tools.map((t) => `${server}/${t.name}`)),
    );
    expect(queries.flatMap((q) => q.expected).filter((name) => !known.has(name))).toEqual([]);
  });
});

describe('the fresh labelled set', () => {
  const queries = freshQueries();
  const servers = freshServers();

  it('has at least 150 distinct queries of every kind, none taken from the first set', () => {
    expect(queries.length).toBeGreaterThanOrEqual(150);
    expect(new Set(queries.map((q) => q.query)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => q.kind))).toEqual(
      new Set(['easy', 'paraphrase', 'ambiguous', 'parameter']),
    );
    const first = new Set(labelledQueries().map((q) => q.query.toLowerCase()));
    expect(queries.filter((q) => first.has(q.query.toLowerCase()))).toEqual([]);
  });

  it('covers every server, six of them new', () => {
    expect(Object.keys(servers).length - Object.keys(realServers()).length).toBeGreaterThanOrEqual(4);
    const labelled = new Set(queries.flatMap((q) => q.expected.map((e) => e.split('/')[0])));
    expect(Object.keys(servers).filter((s) => !labelled.has(s))).toEqual([]);
  });

  it('labels only tools the snapshots hold', () => {
    const known = new Set(
      Object.entries(servers).flatMap(([server, s]) => s.tools.map((t) => `${server}/${t.name}`)),
    );
    expect(queries.flatMap((q) => q.expected).filter((name) => !known.has(name))).toEqual([]);
  });
});
