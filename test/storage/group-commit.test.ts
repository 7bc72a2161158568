import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedWrites } from '../../src/storage/batched-writes.js';
import { groupCommit } from '../../src/storage/store.js';

describe('groupCommit', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes at once when the store is quiet or written one record at a time', () => {
    const defer = groupCommit(4);
    const flushed: string[] = [];
    defer(() => flushed.push('first'), 0);
    vi.advanceTimersByTime(0);
    expect(flushed).toEqual(['first']);
    // Right after, but the last batch was one record (an awaited append): no waiting either.
    defer(() => flushed.push('second'), 1);
    vi.advanceTimersByTime(0);
    expect(flushed).toEqual(['first', 'second']);
  });

  it('waits out the window after a batch of several, then writes all it gathered', () => {
    const defer = groupCommit(4);
    const flushed: number[] = [];
    defer(() => flushed.push(performance.now()), 0);
    vi.advanceTimersByTime(0);
    const first = flushed[0]!;
    vi.advanceTimersByTime(1);
    defer(() => flushed.push(performance.now()), 6);
    vi.advanceTimersByTime(2);
    expect(flushed).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flushed).toHaveLength(2);
    expect(flushed[1]! - first).toBeGreaterThanOrEqual(4);
    // Past the window the next busy batch goes at once.
    vi.advanceTimersByTime(10);
    defer(() => flushed.push(performance.now()), 6);
    vi.advanceTimersByTime(0);
    expect(flushed).toHaveLength(3);
  });

  it('is told by BatchedWrites how many records the previous batch held', async () => {
    vi.useRealTimers();
    const told: number[] = [];
    const pending: (() => void)[] = [];
    const writes = new BatchedWrites<number>({
      write: async (items) => items.map((_, i) => i + 1),
      writeOne: async () => 1,
      defer: (flush, previous) => {
        told.push(previous);
        pending.push(flush);
      },
    });
    const firstBatch = [writes.add(1), writes.add(2), writes.add(3)];
    pending.shift()!();
    await Promise.all(firstBatch);
    const second = writes.add(4);
    pending.shift()!();
    await second;
    expect(told).toEqual([0, 3]);
  });
});
