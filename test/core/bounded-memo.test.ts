import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/core/bounded-memo.js';

describe('BoundedMemo', () => {
  it('gives back what it was told to remember, by key', () => {
    const memo = new BoundedMemo<number>(4);
    expect(memo.get('a')).toBeUndefined();
    expect(memo.remember('a', 1)).toBe(1);
    expect(memo.remember('b', 0)).toBe(0);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([1, 0, undefined]);
  });

  it('keeps at most its limit, forgetting all at once past it', () => {
    const memo = new BoundedMemo<string>(3);
    for (const key of ['a', 'b', 'c']) memo.remember(key, key.toUpperCase());
    expect(memo.size).toBe(3);
    memo.remember('d', 'D');
    expect(memo.size).toBe(1);
    expect([memo.get('a'), memo.get('d')]).toEqual([undefined, 'D']);
    for (let i = 0; i < 1000; i++) memo.remember(`flood-${i}`, 'x');
    expect(memo.size).toBeLessThanOrEqual(3);
  });
});
