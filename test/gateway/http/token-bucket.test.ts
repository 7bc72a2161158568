import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../src/gateway/http/token-bucket.js';
import { manualClock } from './harness.js';

describe('TokenBuckets', () => {
  it('allows a burst, then refills at the rate and says when to retry', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets({ burst: 3, perSecond: 0.5, now: clock.now });
    expect([1, 2, 3].map(() => buckets.take('a').ok)).toEqual([true, true, true]);
    expect(buckets.take('a')).toEqual({ ok: false, retryAfterSeconds: 2 });
    clock.advance(1000);
    expect(buckets.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock.advance(1000);
    expect(buckets.take('a')).toEqual({ ok: true });
    expect(buckets.take('a').ok).toBe(false);
    // Other keys have their own buckets.
    expect(buckets.take('b').ok).toBe(true);
  });

  it('grants its share of the burst and the rate: one of three replicas, a third', () => {
    const clock = manualClock();
    let share = 1 / 3;
    const buckets = new TokenBuckets({ burst: 30, perSecond: 30, now: clock.now, share: () => share });
    const granted = (n: number) =>
      Array.from({ length: n }, () => buckets.take('a').ok).filter(Boolean).length;
    expect(granted(20)).toBe(10);
    clock.advance(1000);
    expect(granted(20)).toBe(10);
    // A burst split too thin still holds one token.
    share = 1 / 100;
    clock.advance(60_000);
    expect(granted(5)).toBe(1);
  });

  it('never refills past the burst', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets({ burst: 2, perSecond: 100, now: clock.now });
    clock.advance(60_000);
    expect([1, 2, 3].map(() => buckets.take('a').ok)).toEqual([true, true, false]);
  });

  it('keeps a key used over and over as the most recent, and its budget with it', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets({ burst: 3, perSecond: 0.001, maxKeys: 2, now: clock.now });
    // a, then b, then a three times: a moved to the end once, then taken from where it is.
    const taken = ['a', 'b', 'a', 'a', 'a'].map((key) => buckets.take(key).ok);
    expect(taken).toEqual([true, true, true, true, false]);
    buckets.take('c'); // evicts b, the least recent, not a
    expect([buckets.take('a').ok, buckets.take('b').ok]).toEqual([false, true]);
  });

  it('holds at most maxKeys buckets, evicting the least recently used', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets({ burst: 1, perSecond: 0.001, maxKeys: 3, now: clock.now });
    buckets.take('a');
    buckets.take('b');
    buckets.take('c');
    buckets.take('a'); // a is now the most recently used, b the least
    for (let i = 0; i < 1000; i++) buckets.take(`flood-${i}`);
    expect(buckets.size).toBe(3);
    const fresh = new TokenBuckets({ burst: 1, perSecond: 0.001, maxKeys: 3, now: clock.now });
    fresh.take('a');
    fresh.take('b');
    fresh.take('c');
    fresh.take('a');
    fresh.take('d'); // evicts b, keeps a and c
    expect(fresh.take('a').ok).toBe(false);
    expect(fresh.take('c').ok).toBe(false);
    expect(fresh.take('b').ok).toBe(true);
  });
});
