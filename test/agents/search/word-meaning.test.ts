import { describe, expect, it } from 'vitest';
import { buildCatalogNeighbours } from '../../../src/agents/search/catalog-neighbours.js';
import { stem } from '../../../src/agents/search/tokenize.js';
import { relationsOf } from '../../../src/agents/search/word-relations.js';
import {
  decodeWordVectors,
  encodeWordVectors,
  wordVectors,
} from '../../../src/agents/search/word-vectors.js';

describe('word vectors', () => {
  it('round-trips a table: rows come back as unit vectors in the same directions', () => {
    const table = decodeWordVectors(
      encodeWordVectors(
        ['alpha', 'beta', 'zero'],
        [
          [3, 4],
          [-1, 0],
          [0, 0],
        ],
        2,
      ),
    );
    expect(table.dimensions).toBe(2);
    const alpha = [...table.vectorOf('alpha')!];
    expect(alpha[0]).toBeCloseTo(0.6, 2);
    expect(alpha[1]).toBeCloseTo(0.8, 2);
    expect([...table.vectorOf('beta')!]).toEqual([-1, 0]);
    expect([...table.vectorOf('zero')!]).toEqual([0, 0]);
    expect(table.vectorOf('gamma')).toBeUndefined();
  });

  it('refuses a file that is not a table, or is cut short', () => {
    const good = encodeWordVectors(['alpha'], [[1, 2, 3]], 3);
    expect(() => decodeWordVectors(Buffer.from('not a table at all'))).toThrow(/SBWV/);
    expect(() => decodeWordVectors(good.subarray(0, good.length - 1))).toThrow(/truncated/);
    expect(() => decodeWordVectors(Buffer.alloc(3))).toThrow(/SBWV/);
  });

  it('ships vectors for common words', () => {
    const v = wordVectors();
    expect(v.dimensions).toBe(64);
    expect(v.vectorOf(stem('latitude'))).toBeDefined();
    expect(v.vectorOf('qzxv')).toBeUndefined();
  });
});

describe('catalog neighbours', () => {
  it("finds a word's nearest terms among the catalog's own, above the floor, best first", () => {
    const near = buildCatalogNeighbours(
      ['longitud', 'elevation', 'screenshot', 'qzxv'].map(String),
      wordVectors(),
    );
    const found = near.nearest(stem('latitude'), 2, 0.3);
    expect(found[0]?.term).toBe('longitud');
    expect(found.every((n, i) => i === 0 || n.similarity <= found[i - 1]!.similarity)).toBe(true);
    expect(found.map((n) => n.term)).not.toContain('qzxv');
    expect(near.nearest(stem('latitude'), 5, 0.99)).toEqual([]);
    expect(near.nearest('qzxv', 5, 0)).toEqual([]);
    expect(near.nearest(stem('latitude'), 0, 0)).toEqual([]);
  });
});

describe('word relations', () => {
  it('ships WordNet synonyms and derived forms as stems, and nothing for nonsense', () => {
    expect(relationsOf(stem('echo')).map((r) => r.term)).toContain(stem('repeat'));
    expect(relationsOf(stem('link')).map((r) => r.term)).toContain(stem('connect'));
    expect(relationsOf(stem('navigate')).map((r) => r.term)).toContain(stem('navigation'));
    for (const r of relationsOf(stem('repeat'))) expect(r.similarity).toBeGreaterThan(0);
    expect(relationsOf('qzxv')).toEqual([]);
  });
});
