import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RUNTIME_BACKOFF,
  FIRST_CONNECT_DELAYS_MS,
  runtimeDelay,
} from '../../../src/host/supervisor/backoff.js';

describe('backoff', () => {
  it('retries a first connect after 1, 2, 4, 8 and 16 s', () => {
    expect(FIRST_CONNECT_DELAYS_MS).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('grows runtime delays exponentially up to the cap, with jitter in range', () => {
    const b = DEFAULT_RUNTIME_BACKOFF;
    expect(runtimeDelay(0, b, () => 0)).toBe(500);
    expect(runtimeDelay(0, b, () => 1)).toBe(1000);
    expect(runtimeDelay(3, b, () => 1)).toBe(8000);
    expect(runtimeDelay(20, b, () => 1)).toBe(60_000);
    expect(runtimeDelay(1000, b, () => 1)).toBe(60_000);
    for (let i = 0; i < 50; i++) {
      const d = runtimeDelay(5, b);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(32_000);
    }
  });
});
