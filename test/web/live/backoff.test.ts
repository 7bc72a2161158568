import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../web/live/backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base up to the cap', () => {
    const middle = () => 0.5; // no jitter: 0.8 + 0.4 × 0.5 = 1
    expect([0, 1, 2, 3, 4, 5, 6, 10, 100].map((n) => backoffDelay(n, { random: middle }))).toEqual([
      500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000, 15_000,
    ]);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 300, random: middle })).toBe(300);
  });

  it('spreads each delay by at most 20% either way', () => {
    expect(backoffDelay(1, { random: () => 0 })).toBe(800);
    expect(backoffDelay(1, { random: () => 0.999_999 })).toBe(1200);
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(3);
      expect(delay).toBeGreaterThanOrEqual(3200);
      expect(delay).toBeLessThanOrEqual(4800);
    }
  });
});
