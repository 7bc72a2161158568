import { describeError } from '../../core/errors.js';
import { isoTime } from '../../core/iso-time.js';
import type { AccessLogEntry, GatewayLogger } from './context.js';

/**
 * The access log's line: `ISO-time [access] id METHOD /path status 12ms principal remote`.
 * Values that come from the client (path, principal) are held to printable characters without
 * spaces, so a crafted `sub` claim cannot forge a second line or shift the columns.
 */
export function formatAccessLine(entry: AccessLogEntry): string {
  const principal = entry.principal === undefined ? '-' : safe(entry.principal, 128);
  return (
    `${isoTime(entry.at)} [access] ${entry.id} ${entry.method} ${safe(entry.path, 512)} ` +
    `${entry.status} ${Math.round(entry.ms)}ms ${principal} ${safe(entry.remoteAddress, 64)}`
  );
}

const UNSAFE = /[^\x21-\x7e]/g;
const SAFE = /^[\x21-\x7e]*$/;

function safe(text: string, max: number): string {
  const clean = SAFE.test(text) ? text : text.replace(UNSAFE, '_');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** How long access lines wait to be written together, in ms (at most `maxPendingLines` wait). */
export const ACCESS_LOG_DELAY_MS = 20;

/** Options of `streamLogger`. */
export interface StreamLoggerOptions {
  /** Default: standard error. */
  readonly write?: (text: string) => void;
  /**
   * Runs `flush` a little later (default: after `ACCESS_LOG_DELAY_MS`): access lines written in
   * between go out in one write. Injected in tests.
   */
  readonly defer?: (flush: () => void) => void;
  /** Access lines held at most before they are written at once anyway. Default 64. */
  readonly maxPendingLines?: number;
}

/**
 * A logger writing one line per event to `write` (default: standard error). Access lines are
 * gathered and written together, a few ms later (one write per batch of requests instead of
 * one per request, so the log does not cost a system call per request); warnings and failures are
 * written at once, after the access lines before them, and the held lines go out when the
 * process exits. Failures get their message and, on the next lines, their stack: the log is
 * where the details go that the client is never shown.
 */
export function streamLogger(options: StreamLoggerOptions = {}): GatewayLogger {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  // A timer rather than the next tick: at one request at a time, a write per request would sit
  // between each answer and the next request. It does not hold the process open: exit flushes.
  const defer = options.defer ?? ((run: () => void) => setTimeout(run, ACCESS_LOG_DELAY_MS).unref());
  const maxPending = options.maxPendingLines ?? 64;
  let pending = '';
  let count = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    process.off('exit', flush);
    if (count === 0) return;
    const text = pending;
    pending = '';
    count = 0;
    write(text);
  };
  const now = (text: string) => {
    flush();
    write(text);
  };
  return {
    access: (entry) => {
      pending += `${formatAccessLine(entry)}\n`;
      count += 1;
      if (count >= maxPending) return flush();
      if (scheduled) return;
      scheduled = true;
      process.once('exit', flush);
      defer(flush);
    },
    warn: (message) => now(`${new Date().toISOString()} [warn] ${message}\n`),
    error: (message, error) => {
      const detail =
        error instanceof Error && error.stack ? error.stack : error === undefined ? '' : describeError(error);
      now(`${new Date().toISOString()} [error] ${message}${detail ? `\n${detail}` : ''}\n`);
    },
  };
}
