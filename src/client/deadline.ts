/**
 * A request deadline that can be reset (progress arrived) and paused (the user is answering
 * an elicitation for this server). The SDK's own timeout cannot pause, so requests run with
 * the SDK timeout disabled and this one aborts them instead.
 */
export class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private remaining: number;
  private startedAt = 0;
  private pauses = 0;
  private done = false;

  constructor(
    private readonly budgetMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remaining = budgetMs;
    this.arm();
  }

  /** Restarts the full budget (e.g. on a progress notification). */
  reset(): void {
    if (this.done) return;
    this.remaining = this.budgetMs;
    if (this.pauses === 0) this.arm();
  }

  /** Stops the clock until a matching `resume()`. Nested pauses are counted. */
  pause(): void {
    if (this.done) return;
    if (this.pauses++ === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.remaining = Math.max(0, this.remaining - (Date.now() - this.startedAt));
    }
  }

  resume(): void {
    if (this.done || this.pauses === 0) return;
    if (--this.pauses === 0) this.arm();
  }

  clear(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.startedAt = Date.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.onExpire();
    }, this.remaining);
  }
}

/**
 * The deadlines of one connection's requests in flight. While a user-facing handler runs (an
 * elicitation or sampling answer), every deadline is paused, including ones started then:
 * the server is waiting on a person, not failing. (Which request an elicitation belongs to is
 * not on the wire in every era, so all of the connection's requests pause.)
 */
export class DeadlineGroup {
  private readonly active = new Set<Deadline>();
  private interactive = 0;

  start(budgetMs: number, onExpire: () => void): Deadline {
    const deadline = new Deadline(budgetMs, onExpire);
    for (let i = 0; i < this.interactive; i++) deadline.pause();
    this.active.add(deadline);
    return deadline;
  }

  end(deadline: Deadline): void {
    deadline.clear();
    this.active.delete(deadline);
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
}
