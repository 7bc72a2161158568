/**
 * Abort controllers kept for reuse by code that needs one per request. On Node 20 a new
 * `AbortController` costs several microseconds (its signal is an `EventTarget` with maps of
 * its own), and every one made per request outlived it through young-generation collections
 * in the gateway's traces; a controller whose signal never fired is as good as new, so one
 * goes back here once its request is over, and the next request takes it.
 *
 * Only for controllers whose signal nobody holds after `release`: every listener added for
 * the request must be removed by then (a listener left behind would hear a later request's
 * abort). An aborted controller is never taken back.
 */
export class ControllerPool {
  private readonly free: AbortController[] = [];

  /** @param max controllers kept at most (the rest are left to the collector). */
  constructor(private readonly max = 64) {}

  /** A controller whose signal has not fired. */
  take(): AbortController {
    return this.free.pop() ?? new AbortController();
  }

  /** Hands `controller` back once its request is over; ignored when it fired or the pool is full. */
  release(controller: AbortController): void {
    if (!controller.signal.aborted && this.free.length < this.max) this.free.push(controller);
  }
}
