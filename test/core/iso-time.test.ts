import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time.js';

describe('isoTime', () => {
  it('gives what toISOString gives, for the same millisecond twice and for the next', () => {
    const times = [0, 1_764_614_400_123, 1_764_614_400_123, 1_764_614_400_124, -1, 8.64e15];
    for (const time of times) expect(isoTime(new Date(time))).toBe(new Date(time).toISOString());
  });

  it('throws for an invalid date, as toISOString does', () => {
    isoTime(new Date(5));
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(isoTime(new Date(5))).toBe(new Date(5).toISOString());
  });
});
