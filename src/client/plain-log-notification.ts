import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/**
 * A server's log line (`notifications/message`) read off the transport, past the SDK. The
 * SDK's client classifies every inbound message by trying its result, error and request
 * schemas before the notification one; each miss builds a zod error, so one log notification
 * costs about 40 µs and most of a flood's garbage (a server logging 27,000 lines held its
 * calls up for seconds). This reads the one plain shape by hand and leaves everything else to
 * the SDK.
 *
 * When it applies: a message without `id`, method `notifications/message`, params a plain
 * object with no `_meta` (whose schema is the SDK's to judge), a `data` member of any type,
 * a `level` among the eight of the spec (RFC 5424 names), and a `logger` that is a string or
 * absent. Then it gives exactly what the SDK's handler would be given; the differential
 * tests in test/client/plain-log-notification.test.ts hold the two to each other.
 */
export interface PlainLogLine {
  readonly level: string;
  /** `data` as text: a string as is, anything else as JSON. */
  readonly text: string;
  readonly logger?: string;
}

/** The eight levels of `LoggingLevel` (MCP 2025-11-25 §logging; RFC 5424 §6.2.1). */
const LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** The log line `message` carries, when it is one in the plain shape; otherwise undefined. */
export function plainLogNotification(message: JSONRPCMessage): PlainLogLine | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'notifications/message' || 'id' in m) return undefined;
  const params = m.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { level, logger, data, _meta } = params as Record<string, unknown>;
  if (_meta !== undefined || '_meta' in params || !('data' in params)) return undefined;
  if (typeof level !== 'string' || !LEVELS.has(level)) return undefined;
  if (logger !== undefined && typeof logger !== 'string') return undefined;
  return { level, text: logText(data), ...(logger !== undefined && { logger }) };
}

/** A log notification's `data` as text for the log sink: a string as is, else JSON (none: empty). */
export function logText(data: unknown): string {
  return typeof data === 'string' ? data : (JSON.stringify(data) ?? '');
}
