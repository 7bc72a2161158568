import { describe, expect, it } from 'vitest';
import { findLine, neighboursOf, parseNeighbourList } from '../../../src/agents/search/word-neighbours.js';

describe('word neighbours', () => {
  it('finds any line of a sorted table by binary search, and nothing for a missing stem', () => {
    const keys = ['alpha', 'beta', 'delta', 'gamma', 'omega', 'zeta'];
    const text = keys.map((k, i) => `${k}\tn${i} 90`).join('\n');
    for (const [i, k] of keys.entries()) expect(findLine(text, k)).toBe(`n${i} 90`);
    for (const missing of ['', 'a', 'aleph', 'epsilon', 'zz', 'omeg'])
      expect(findLine(text, missing)).toBeUndefined();
    expect(findLine('', 'alpha')).toBeUndefined();
    expect(findLine(`${text}\n`, 'zeta')).toBe('n5 90');
  });

  it('parses a line into neighbours with similarities, best first as written', () => {
    expect(parseNeighbourList('post 64 email 58')).toEqual([
      { term: 'post', similarity: 0.64 },
      { term: 'email', similarity: 0.58 },
    ]);
  });

  it('ships a table: common words have neighbours, nonsense has none', () => {
    expect(neighboursOf('tweet').map((n) => n.term)).toContain('post');
    expect(neighboursOf('photograph').map((n) => n.term)).toContain('photo');
    expect(neighboursOf('qzxv')).toEqual([]);
  });
});
