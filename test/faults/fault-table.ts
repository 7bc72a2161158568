/**
 * The fault matrix's row type: one way an upstream MCP server can fail, the promise Switchboard
 * makes about it in words, how the misbehaving server is started, and the judge that checks
 * the promise against a real server. The rows live in one table per transport
 * (stdio-faults.ts, http-faults.ts, sse-faults.ts, host-faults.ts); the test files run them,
 * and matrix.test.ts checks the table itself covers every class on the transports it must.
 * A new fault is one row.
 */

/** The classes of failure the matrix covers. */
export const FAULT_CLASSES = [
  'crash-before-initialize',
  'crash-during-initialize',
  'crash-after-initialize',
  'crash-mid-call',
  'crash-between-calls',
  'crash-while-paging',
  'held-pipe',
  'daemon',
  'ignored-sigterm',
  'framing',
  'size',
  'ids',
  'flood',
  'http-status',
  'connection-reset',
  'sse-stream',
  'session',
  'pagination-loop',
  'hanging-initialize',
  'malformed-answer',
  'stdout-closed',
  'slow-body',
] as const;
export type FaultClass = (typeof FAULT_CLASSES)[number];

export type FaultTransport = 'stdio' | 'http' | 'sse';

/** One row of the matrix. `Start` says how the server is started, `Trial` is what the judge gets. */
export interface Fault<Start, Trial> {
  /** Unique, kebab-case: the test's name. */
  readonly id: string;
  readonly transport: FaultTransport;
  readonly class: FaultClass;
  /** The promise, in one sentence a user would read. */
  readonly promise: string;
  readonly start: Start;
  /** Checks the promise; throws (an `expect`) when it is broken. */
  readonly judge: (trial: Trial) => Promise<void>;
  /**
   * A promise known to be broken today, and how: the row is skipped (not deleted) until the
   * defect is fixed, so the matrix keeps saying what it must hold.
   */
  readonly knownDefect?: string;
}

/**
 * "At once": a failure must come within this long of the witnessed event (the death of the
 * process, the reset of the socket). Far above what a loaded 2-core machine needs, far below
 * the 60 s request timeout every row runs with, so waiting for the timeout is unmistakable.
 */
export const AT_ONCE_MS = 2000;

/** Every row's request timeout, seconds: a call that waits for it fails any `AT_ONCE_MS` bound. */
export const REQUEST_TIMEOUT_S = 60;

/** How long a row's judge may run: under the test's own timeout (45 s), so its cleanup still runs. */
export const JUDGE_MS = 35_000;

/**
 * Runs a row's judge, failing it after JUDGE_MS: a broken promise usually shows as a call that
 * waits for its timeout, and the test runner's own timeout would abandon the row mid-judge,
 * skipping the close and the survivor check that must follow it (and leaving its server behind).
 */
export async function judgeWithin(id: string, judging: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${id}: the judge did not finish within ${JUDGE_MS} ms (a call waiting for its timeout?)`,
          ),
        ),
      JUDGE_MS,
    );
  });
  try {
    await Promise.race([judging, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
