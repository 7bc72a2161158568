import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { groupCommit } from '../../src/storage/store.js';

describe('groupCommit', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes at once when the last write is older than the window', () => {
    const defer = groupCommit(4);
    const flushed: number[] = [];
    defer(() => flushed.push(performance.now()));
    vi.advanceTimersByTime(0);
    expect(flushed).toHaveLength(1);
    vi.advanceTimersByTime(10);
    defer(() => flushed.push(performance.now()));
    vi.advanceTimersByTime(0);
    expect(flushed).toHaveLength(2);
  });

  it('under load, waits until the window since the last write has passed, then writes', () => {
    const defer = groupCommit(4);
    const flushed: number[] = [];
    defer(() => flushed.push(performance.now()));
    vi.advanceTimersByTime(0);
    const first = flushed[0]!;
    // The next record comes a millisecond later: it waits for the rest of the window.
    vi.advanceTimersByTime(1);
    defer(() => flushed.push(performance.now()));
    vi.advanceTimersByTime(2);
    expect(flushed).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flushed).toHaveLength(2);
    expect(flushed[1]! - first).toBeGreaterThanOrEqual(4);
  });
});
