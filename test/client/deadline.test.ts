import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../../src/client/deadline.js';

describe('Deadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('expires after its budget', () => {
    const fired = vi.fn();
    new Deadline(1000, fired);
    vi.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('restarts the full budget on reset', () => {
    const fired = vi.fn();
    const d = new Deadline(1000, fired);
    vi.advanceTimersByTime(900);
    d.reset();
    vi.advanceTimersByTime(900);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('does not run while paused, and keeps the remaining time on resume', () => {
    const fired = vi.fn();
    const d = new Deadline(1000, fired);
    vi.advanceTimersByTime(600);
    d.pause();
    d.pause();
    vi.advanceTimersByTime(60_000);
    d.resume();
    vi.advanceTimersByTime(60_000);
    expect(fired).not.toHaveBeenCalled();
    d.resume();
    vi.advanceTimersByTime(399);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('never fires once cleared', () => {
    const fired = vi.fn();
    const d = new Deadline(10, fired);
    d.clear();
    vi.advanceTimersByTime(100);
    expect(fired).not.toHaveBeenCalled();
  });
});
