import { describe, expect, it } from 'vitest';
import { ControllerPool, listenForAbort, stopListening } from '../../src/core/controller-pool.js';

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

describe('listenForAbort', () => {
  const signals = (pool: ControllerPool) => ({
    pooled: () => pool.take(),
    native: () => new AbortController(),
  });

  for (const kind of ['pooled', 'native'] as const) {
    it(`calls a listener once when a ${kind} signal aborts, in the order added, and not after it stopped`, () => {
      const controller = signals(new ControllerPool())[kind]();
      const heard: string[] = [];
      const first = () => heard.push('first');
      const second = () => heard.push('second');
      const gone = () => heard.push('gone');
      listenForAbort(controller.signal, first);
      listenForAbort(controller.signal, gone);
      listenForAbort(controller.signal, second);
      stopListening(controller.signal, gone);
      controller.abort(new Error('stop'));
      controller.abort(new Error('again'));
      expect(heard).toEqual(['first', 'second']);
      // Added after the abort: called at once.
      listenForAbort(controller.signal, () => heard.push('late'));
      expect(heard).toEqual(['first', 'second', 'late']);
    });
  }

  it('does not take back a controller that is still heard', () => {
    const pool = new ControllerPool();
    const heard = pool.take();
    const listener = () => {};
    listenForAbort(heard.signal, listener);
    pool.release(heard);
    expect(pool.take()).not.toBe(heard);
    stopListening(heard.signal, listener);
    pool.release(heard);
    expect(pool.take()).toBe(heard);
  });

  it('calls the other listeners when one throws, and reports the error as uncaught', async () => {
    const controller = new ControllerPool().take();
    const heard: string[] = [];
    const reported = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    listenForAbort(controller.signal, () => {
      throw new Error('listener failed');
    });
    listenForAbort(controller.signal, () => heard.push('after'));
    controller.abort();
    expect(heard).toEqual(['after']);
    expect(await reported).toMatchObject({ message: 'listener failed' });
  });
});
