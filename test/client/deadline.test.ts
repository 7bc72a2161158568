import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineGroup } from '../../src/client/deadline.js';

describe('DeadlineGroup', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('expires a deadline after its budget', () => {
    const fired = vi.fn();
    new DeadlineGroup().start(1000, fired);
    vi.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('restarts the full budget on reset', () => {
    const fired = vi.fn();
    const d = new DeadlineGroup().start(1000, fired);
    vi.advanceTimersByTime(900);
    d.reset();
    vi.advanceTimersByTime(900);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('does not run while paused, and keeps the remaining time on resume', async () => {
    const group = new DeadlineGroup();
    const fired = vi.fn();
    group.start(1000, fired);
    vi.advanceTimersByTime(600);
    let release!: () => void;
    const held = group.whilePaused(() => new Promise<void>((r) => (release = r)));
    // A deadline started while a person is answering starts paused too.
    const late = vi.fn();
    group.start(100, late);
    vi.advanceTimersByTime(60_000);
    expect(fired).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
    release();
    await held;
    vi.advanceTimersByTime(99);
    expect(late).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(late).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(299);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('fires each deadline at its own time with one timer', () => {
    const group = new DeadlineGroup();
    const order: string[] = [];
    group.start(300, () => order.push('c'));
    group.start(100, () => order.push('a'));
    group.start(200, () => order.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(300);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never fires an ended deadline, and leaves no timer when idle', () => {
    const group = new DeadlineGroup();
    const fired = vi.fn();
    const d = group.start(10, fired);
    group.end(d);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(fired).not.toHaveBeenCalled();
  });
});
