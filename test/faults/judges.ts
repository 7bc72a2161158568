import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import {
  isSwitchboardError,
  type SwitchboardError,
  type SwitchboardErrorCode,
} from '../../src/core/errors.js';
import { running } from '../helpers/processes.js';
import { AT_ONCE_MS } from './fault-table.js';

/** What the judges of every transport share: timing outcomes against a witnessed moment. */

/** A promise's outcome and the moment it came (performance.now()). */
export interface Outcome<T> {
  readonly value?: T;
  readonly error?: unknown;
  readonly at: number;
}

/** Records when `promise` settled, and how. */
export function timed<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then(
    (value) => ({ value, at: performance.now() }),
    (error: unknown) => ({ error, at: performance.now() }),
  );
}

/**
 * The moment process `pid` ended (performance.now()), seen by polling /proc every 2 ms —
 * the witness of a death the process chose itself. Bounded: throws after `timeoutMs`.
 */
export async function exitOf(pid: number, timeoutMs = 20_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (running(pid)) {
    if (performance.now() > deadline) throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now();
}

/**
 * Asserts `outcome` failed with a SwitchboardError of one of `codes`, within `AT_ONCE_MS` of
 * `since` (the witnessed event), and with a message that names the server. Returns the error.
 */
export function failedAtOnce(
  outcome: Outcome<unknown>,
  since: number,
  codes: readonly SwitchboardErrorCode[],
  server: string,
): SwitchboardError {
  const error = outcome.error;
  expect(
    isSwitchboardError(error, ...codes),
    `expected one of ${codes.join(', ')}, got ${error instanceof Error ? `${(error as SwitchboardError).code ?? error.name}: ${error.message}` : JSON.stringify(outcome.value)?.slice(0, 200)}`,
  ).toBe(true);
  const failure = error as SwitchboardError;
  expect(outcome.at - since, `failed ${Math.round(outcome.at - since)} ms after the event`).toBeLessThan(
    AT_ONCE_MS,
  );
  expect(failure.message).toContain(`"${server}"`);
  // Clear: says what to do, and is short enough to read (no HTML page, no 20 MiB body).
  expect(failure.message.length).toBeLessThan(2000);
  return failure;
}

/** Asserts the call succeeded, returning its value. */
export function succeeded<T>(outcome: Outcome<T>): T {
  expect(
    outcome.error,
    `failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`,
  ).toBeUndefined();
  return outcome.value as T;
}
