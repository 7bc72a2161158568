import { describe, expect, it } from 'vitest';
import { ControllerPool } from '../../src/core/controller-pool.js';

describe('ControllerPool', () => {
  it('hands a released controller out again', () => {
    const pool = new ControllerPool();
    const first = pool.take();
    pool.release(first);
    expect(pool.take()).toBe(first);
    expect(pool.take()).not.toBe(first);
  });

  it('never takes back a controller that fired', () => {
    const pool = new ControllerPool();
    const fired = pool.take();
    fired.abort(new Error('cancelled'));
    pool.release(fired);
    const next = pool.take();
    expect(next).not.toBe(fired);
    expect(next.signal.aborted).toBe(false);
  });

  it('keeps at most its limit', () => {
    const pool = new ControllerPool(2);
    const taken = [pool.take(), pool.take(), pool.take()];
    for (const controller of taken) pool.release(controller);
    const again = new Set([pool.take(), pool.take(), pool.take()]);
    expect(taken.filter((controller) => again.has(controller))).toHaveLength(2);
  });
});
