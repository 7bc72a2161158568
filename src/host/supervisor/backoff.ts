/**
 * When to try again. A server that never connected gets a fixed, short schedule and then is
 * left `failed` until someone reloads it (a broken command does not fix itself); a server that
 * was connected and dropped is retried for as long as it takes, with capped exponential
 * backoff and jitter so that many servers behind one outage do not return in lockstep.
 */
export const FIRST_CONNECT_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 16000];

export interface RuntimeBackoff {
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_RUNTIME_BACKOFF: RuntimeBackoff = { baseMs: 1000, capMs: 60_000 };

/** Delay before reconnect attempt `n` (0-based) after a drop: full jitter in [base/2, min(cap, base·2ⁿ)]. */
export function runtimeDelay(
  attempt: number,
  backoff: RuntimeBackoff,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.min(attempt, 30));
  const floor = Math.min(ceiling, backoff.baseMs / 2);
  return Math.round(floor + (ceiling - floor) * random());
}
