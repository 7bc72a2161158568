/**
 * Abort controllers kept for reuse by code that needs one per request. On Node 20 a new
 * `AbortController` costs several microseconds (its signal is an `EventTarget` with maps of
 * its own), and every one made per request outlived it through young-generation collections
 * in the gateway's traces; a controller whose signal never fired is as good as new, so one
 * goes back here once its request is over, and the next request takes it.
 *
 * Only for controllers whose signal nobody holds after `release`: every listener added for
 * the request must be removed by then (a listener left behind would hear a later request's
 * abort). An aborted controller, or one with a listener still on it, is never taken back.
 *
 * Code that follows such a signal listens with `listenForAbort` instead of `addEventListener`:
 * on the pool's own signals that is a function in a list, where an `EventTarget` listener,
 * added and removed twice per call on a busy gateway, cost it ~4 µs a call.
 */
export class ControllerPool {
  private readonly free: PooledController[] = [];

  /** @param max controllers kept at most (the rest are left to the collector). */
  constructor(private readonly max = 64) {}

  /** A controller whose signal has not fired. */
  take(): AbortController {
    return this.free.pop() ?? new PooledController();
  }

  /** Hands `controller` back once its request is over; ignored when it fired, is still heard, or the pool is full. */
  release(controller: AbortController): void {
    if (!(controller instanceof PooledController) || controller.signal.aborted) return;
    if (controller.listeners.length > 0 || this.free.length >= this.max) return;
    this.free.push(controller);
  }
}

/**
 * Calls `listener` once, when `signal` aborts (at once if it has), until `stopListening`: as
 * `addEventListener('abort', listener, { once: true })` does, more cheaply for the pool's signals.
 */
export function listenForAbort(signal: AbortSignal, listener: () => void): void {
  if (signal.aborted) {
    listener();
    return;
  }
  const pooled = pooledBySignal.get(signal);
  if (pooled) pooled.listeners.push(listener);
  else signal.addEventListener('abort', listener, { once: true });
}

/** Undoes `listenForAbort(signal, listener)`; nothing when it was not listening. */
export function stopListening(signal: AbortSignal, listener: () => void): void {
  const pooled = pooledBySignal.get(signal);
  if (!pooled) {
    signal.removeEventListener('abort', listener);
    return;
  }
  const at = pooled.listeners.lastIndexOf(listener);
  if (at >= 0) pooled.listeners.splice(at, 1);
}

/** The pool's controllers, by their signals (few, and kept: the pool reuses them). */
const pooledBySignal = new WeakMap<AbortSignal, PooledController>();

/** A controller of the pool: aborting it calls the listeners added with `listenForAbort`, in order. */
class PooledController extends AbortController {
  readonly listeners: (() => void)[] = [];

  constructor() {
    super();
    pooledBySignal.set(this.signal, this);
  }

  override abort(reason?: unknown): void {
    if (this.signal.aborted) return;
    super.abort(reason);
    for (const listener of this.listeners.splice(0)) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget reports a listener's error: uncaught, without stopping the others.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
