import type { LoggingLevel } from '@modelcontextprotocol/server';

/** The MCP log levels, least severe first (RFC 5424 severities). */
const ORDER: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * Whether a line at `level` passes a client's threshold `minimum`. A level the list does not
 * know (an upstream's own word) passes: dropping it would hide what the server said.
 */
export function atLeast(level: string, minimum: LoggingLevel): boolean {
  const at = ORDER.indexOf(level as LoggingLevel);
  return at < 0 || at >= ORDER.indexOf(minimum);
}

/** `value` as a log level, if it is one. */
export function asLoggingLevel(value: unknown): LoggingLevel | undefined {
  return ORDER.includes(value as LoggingLevel) ? (value as LoggingLevel) : undefined;
}
