import { describeError } from '../../core/errors.js';
import type { AccessLogEntry, GatewayLogger } from './context.js';

/**
 * The access log's line: `ISO-time [access] id METHOD /path status 12ms principal remote`.
 * Values that come from the client (path, principal) are held to printable characters without
 * spaces, so a crafted `sub` claim cannot forge a second line or shift the columns.
 */
export function formatAccessLine(entry: AccessLogEntry): string {
  const principal = entry.principal === undefined ? '-' : safe(entry.principal, 128);
  return [
    entry.at.toISOString(),
    '[access]',
    entry.id,
    entry.method,
    safe(entry.path, 512),
    String(entry.status),
    `${Math.round(entry.ms)}ms`,
    principal,
    safe(entry.remoteAddress, 64),
  ].join(' ');
}

function safe(text: string, max: number): string {
  const clean = text.replace(/[^\x21-\x7e]/g, '_');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * A logger writing one line per event to `write` (default: standard error). Failures get
 * their message and, on the next lines, their stack: the log is where the details go that the
 * client is never shown.
 */
export function streamLogger(
  write: (line: string) => void = (line) => process.stderr.write(line),
): GatewayLogger {
  return {
    access: (entry) => write(`${formatAccessLine(entry)}\n`),
    warn: (message) => write(`${new Date().toISOString()} [warn] ${message}\n`),
    error: (message, error) => {
      const detail =
        error instanceof Error && error.stack ? error.stack : error === undefined ? '' : describeError(error);
      write(`${new Date().toISOString()} [error] ${message}${detail ? `\n${detail}` : ''}\n`);
    },
  };
}
