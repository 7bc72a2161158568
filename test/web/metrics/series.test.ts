import { describe, expect, it } from 'vitest';
import {
  formatMs,
  formatRate,
  formatRatio,
  maxOf,
  seriesOf,
  sparkPath,
} from '../../../web/metrics/series.js';

describe('sparkline paths', () => {
  it('draws a line through the values, 0 at the bottom and max at the top', () => {
    expect(sparkPath([0, 5, 10], 100, 20, 10)).toBe('M0 20L50 10L100 0');
  });

  it('breaks the line at a null (no calls), and draws a lone value as a dot', () => {
    expect(sparkPath([1, null, 1, 1], 30, 10, 1)).toBe('M0 0h0M20 0L30 0');
  });

  it('clips values above max, and a zero max draws at the bottom instead of dividing by zero', () => {
    expect(sparkPath([20], 10, 10, 10)).toBe('M0 0h0');
    expect(sparkPath([0, 0], 10, 10, 0)).toBe('M0 10L10 10');
    expect(sparkPath([], 10, 10, 1)).toBe('');
  });

  it('a seeded fuzz: every path command stays inside the box', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 200; run++) {
      const values = Array.from({ length: 1 + Math.floor(next() * 60) }, () =>
        next() < 0.2 ? null : next() < 0.05 ? Number.NaN : next() * 1000,
      );
      const max = maxOf(1, values);
      const d = sparkPath(values, 120, 28, max);
      for (const [, x, y] of d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)) {
        expect(Number(x)).toBeGreaterThanOrEqual(0);
        expect(Number(x)).toBeLessThanOrEqual(120);
        expect(Number(y)).toBeGreaterThanOrEqual(0);
        expect(Number(y)).toBeLessThanOrEqual(28);
      }
    }
  });
});

describe('chart series and figures', () => {
  it('turns slots into rates, error rates and percentiles', () => {
    const series = seriesOf(
      {
        server: 's',
        points: [
          { t: 0, calls: 10, errors: 1, refused: 0, p50: 2, p99: 9 },
          { t: 5000, calls: 0, errors: 0, refused: 3, p50: null, p99: null },
        ],
        lastMinute: { calls: 10, rate: 10 / 60, errorRate: 0.1, p50: 2, p99: 9 },
      },
      5,
    );
    expect(series).toEqual({ rate: [2, 0], errorRate: [0.1, null], p50: [2, null], p99: [9, null] });
  });

  it('formats figures as people read them', () => {
    expect(formatMs(null)).toBe('—');
    expect(formatMs(0.42)).toBe('0.42 ms');
    expect(formatMs(85)).toBe('85 ms');
    expect(formatMs(1500)).toBe('1.5 s');
    expect(formatRate(0)).toBe('0/s');
    expect(formatRate(0.05)).toBe('3.0/min');
    expect(formatRate(2.34)).toBe('2.3/s');
    expect(formatRatio(null)).toBe('—');
    expect(formatRatio(0.17)).toBe('17 %');
    expect(formatRatio(0.005)).toBe('0.5 %');
  });
});
