/** How long to wait before reconnect attempt `attempt` (0, 1, 2, …). */
export interface BackoffOptions {
  readonly baseMs?: number;
  readonly maxMs?: number;
  /** A number in [0, 1); default Math.random. */
  readonly random?: () => number;
}

/**
 * Exponential backoff with jitter: base · 2^attempt, capped, then spread by ±20% so that many
 * tabs of one gateway that went away do not all come back in the same millisecond.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 500;
  const max = options.maxMs ?? 15_000;
  const random = options.random ?? Math.random;
  const plain = Math.min(max, base * 2 ** Math.min(attempt, 30));
  return Math.round(plain * (0.8 + 0.4 * random()));
}
