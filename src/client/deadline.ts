/**
 * Request deadlines that can be reset (progress arrived) and paused (the user is answering an
 * elicitation). The SDK's own timeout cannot pause, so requests run with it disabled and these
 * abort them instead. One timer serves all of a connection's deadlines: it is armed for the
 * earliest expiry, so a request costs no timer of its own.
 */
interface Scheduler {
  schedule(at: number): void;
}

export class Deadline {
  /** When it fires (ms since epoch); Infinity while paused. */
  expiresAt: number;
  private remaining: number;
  private pauses = 0;
  private done = false;

  constructor(
    private readonly budgetMs: number,
    private readonly onExpire: () => void,
    private readonly scheduler: Scheduler,
  ) {
    this.remaining = budgetMs;
    this.expiresAt = Date.now() + budgetMs;
  }

  /** Restarts the full budget (e.g. on a progress notification). */
  reset(): void {
    if (this.done) return;
    this.remaining = this.budgetMs;
    // Later than before: the armed timer fires first and re-arms for the new time.
    if (this.pauses === 0) this.expiresAt = Date.now() + this.budgetMs;
  }

  /** Stops the clock until a matching `resume()`. Nested pauses are counted. */
  pause(): void {
    if (this.done) return;
    if (this.pauses++ === 0) {
      this.remaining = Math.max(0, this.expiresAt - Date.now());
      this.expiresAt = Number.POSITIVE_INFINITY;
    }
  }

  resume(): void {
    if (this.done || this.pauses === 0) return;
    if (--this.pauses === 0) {
      this.expiresAt = Date.now() + this.remaining;
      this.scheduler.schedule(this.expiresAt);
    }
  }

  clear(): void {
    this.done = true;
  }

  /** Called by the group when the time has come. */
  fire(): void {
    if (this.done) return;
    this.done = true;
    this.onExpire();
  }
}

/**
 * The deadlines of one connection's requests in flight. While a user-facing handler runs (an
 * elicitation or sampling answer), every deadline is paused, including ones started then:
 * the server is waiting on a person, not failing. (Which request an elicitation belongs to is
 * not on the wire in every era, so all of the connection's requests pause.)
 */
export class DeadlineGroup implements Scheduler {
  private readonly active = new Set<Deadline>();
  private interactive = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  start(budgetMs: number, onExpire: () => void): Deadline {
    const deadline = new Deadline(budgetMs, onExpire, this);
    for (let i = 0; i < this.interactive; i++) deadline.pause();
    this.active.add(deadline);
    this.schedule(deadline.expiresAt);
    return deadline;
  }

  end(deadline: Deadline): void {
    deadline.clear();
    this.active.delete(deadline);
    if (this.active.size === 0) this.disarm();
  }

  async whilePaused<T>(fn: () => Promise<T>): Promise<T> {
    this.interactive++;
    for (const d of this.active) d.pause();
    try {
      return await fn();
    } finally {
      this.interactive--;
      for (const d of this.active) d.resume();
    }
  }

  /** Arms the timer for `at` unless it already fires earlier. */
  schedule(at: number): void {
    if (!Number.isFinite(at) || at >= this.timerAt) return;
    this.disarm();
    this.timerAt = at;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private sweep(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const d of this.active) {
      if (d.expiresAt <= now) {
        this.active.delete(d);
        d.fire();
      } else if (d.expiresAt < next) {
        next = d.expiresAt;
      }
    }
    this.schedule(next);
  }
}
