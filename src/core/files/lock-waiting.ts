/**
 * Waiting for a lock, shared by every lock of Switchboard (the file lock of credentials and
 * config files, the credential store's database lease): callers in one process queue
 * in memory (first come, first served), and the one at the head polls the cross-process lock
 * (a lock file, a database lease) with a growing, jittered backoff until its deadline.
 */

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

/**
 * Callers in this process waiting for the same key, first come first served, so that they
 * queue in memory instead of polling a lock file (or a database lease) against each other.
 * One instance per set of keys: locks of different backends must not share one.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `fn` once every earlier caller for `key` has finished. Waiting past `deadline` (ms
   * since the epoch) throws `onTimeout()`; the callers behind this one are not held up by it.
   */
  async run<T>(
    key: string,
    fn: () => Promise<T>,
    { deadline, onTimeout }: { deadline: number; onTimeout: () => Error },
  ): Promise<T> {
    const previous = this.tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (previous) await untilDeadline(previous, deadline, onTimeout);
      return await fn();
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** Resolves with `promise`, or rejects with `onTimeout()` once `deadline` has passed. */
async function untilDeadline(
  promise: Promise<void>,
  deadline: number,
  onTimeout: () => Error,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), Math.max(0, deadline - Date.now()));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `attempt` until it returns a value, pausing between calls with a growing, jittered
 * backoff (10 ms up to 250 ms). Once `deadline` (ms since the epoch) has passed after a failed
 * attempt, throws what `onTimeout` returns.
 */
export async function pollWithBackoff<T>(
  deadline: number,
  attempt: () => Promise<T | undefined>,
  onTimeout: () => Error | Promise<Error>,
): Promise<T> {
  let pause = FIRST_POLL_MS;
  for (;;) {
    const result = await attempt();
    if (result !== undefined) return result;
    const left = deadline - Date.now();
    if (left <= 0) throw await onTimeout();
    // Jitter keeps two waiters from polling in lockstep.
    await delay(Math.min(left, pause * (0.75 + Math.random() / 2)));
    pause = Math.min(MAX_POLL_MS, pause * 1.5);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
