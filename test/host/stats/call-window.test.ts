import { describe, expect, it } from 'vitest';
import { binOf, CallWindow, edgeOf, percentile } from '../../../src/host/stats/call-window.js';

/** The dashboard's rolling window of calls per server: pure, time injected. */
describe('CallWindow', () => {
  it('counts calls, errors and refusals per slot and per server, oldest slot first', () => {
    let now = 1_000_000;
    const window = new CallWindow({ slotSeconds: 5, slots: 4, now: () => now });
    window.record('a', 10, 'ok');
    window.record('a', 20, 'error');
    window.record('a', 0, 'refused');
    now += 5_000;
    window.record('a', 30, 'ok');
    window.record('b', 1, 'ok');
    const { slotSeconds, servers } = window.snapshot();
    expect(slotSeconds).toBe(5);
    expect(servers.map((s) => s.server)).toEqual(['a', 'b']);
    const a = servers[0]!;
    expect(a.points).toHaveLength(4);
    expect(a.points.map((p) => [p.calls, p.errors, p.refused])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [2, 1, 1],
      [1, 0, 0],
    ]);
    expect(a.points.at(-1)!.t).toBe(Math.floor(now / 5000) * 5000);
    expect(a.lastMinute.calls).toBe(3);
    expect(a.lastMinute.errorRate).toBeCloseTo(1 / 3);
    expect(a.points[0]!.p50).toBeNull();
  });

  it('forgets slots that fell out of the window, even after a long quiet spell', () => {
    let now = 0;
    const window = new CallWindow({ slotSeconds: 1, slots: 3, now: () => now });
    window.record('a', 5, 'ok');
    now = 2_000;
    expect(window.snapshot().servers[0]!.points.map((p) => p.calls)).toEqual([1, 0, 0]);
    now = 3_000;
    expect(window.snapshot().servers[0]!.points.map((p) => p.calls)).toEqual([0, 0, 0]);
    // The ring position of slot 0 is reused by slot 3: its old count must not show.
    window.record('a', 5, 'ok');
    expect(window.snapshot().servers[0]!.points.map((p) => p.calls)).toEqual([0, 0, 1]);
    now = 1_000_000;
    expect(window.snapshot().servers[0]!.lastMinute.calls).toBe(0);
  });

  it('only the servers asked for', () => {
    const window = new CallWindow();
    window.record('a', 1, 'ok');
    window.record('b', 1, 'ok');
    expect(window.snapshot(new Set(['b'])).servers.map((s) => s.server)).toEqual(['b']);
    window.forget('b');
    expect(window.snapshot().servers.map((s) => s.server)).toEqual(['a']);
  });
});

describe('latency percentiles from log-scale bins', () => {
  it('a bin holds its edge: binOf(edgeOf(i)) is i, and just above goes to the next', () => {
    for (let i = 1; i < 40; i++) {
      expect(binOf(edgeOf(i))).toBe(i);
      expect(binOf(edgeOf(i) * 1.01)).toBe(i + 1);
    }
    expect(binOf(0)).toBe(0);
    expect(binOf(Number.NaN)).toBe(0);
    expect(binOf(1e12)).toBe(47);
  });

  it('a seeded fuzz: the reported percentile is never below the true one nor more than 25 % above', () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 100; run++) {
      const samples = Array.from({ length: 1 + Math.floor(next() * 500) }, () => 0.6 + next() ** 3 * 5000);
      const bins = new Array<number>(48).fill(0);
      for (const ms of samples) bins[binOf(ms)]!++;
      const sorted = [...samples].sort((x, y) => x - y);
      for (const q of [0.5, 0.99]) {
        const truth = sorted[Math.max(1, Math.ceil(q * samples.length)) - 1]!;
        const got = percentile(bins, samples.length, q)!;
        expect(got).toBeGreaterThanOrEqual(truth - 0.01);
        expect(got).toBeLessThanOrEqual(truth * 1.25 + 0.01);
      }
    }
    expect(percentile(bins0(), 0, 0.5)).toBeNull();
  });
});

function bins0(): number[] {
  return new Array<number>(48).fill(0);
}
