import type { JSONRPCMessage, Progress, Transport } from '@modelcontextprotocol/client';
import { plainLogNotification } from './plain-log-notification.js';
import { tunnelTaskResult } from './tool-tasks.js';

/**
 * What the connection reads off the transport before the SDK sees a message. The SDK's
 * `connect` chains a handler set on the transport beforehand, with the same message object.
 *  - Progress, routed by our own tokens: the SDK dispatches notifications a tick after
 *    responses, so its own progress handler loses the last event before a result.
 *  - Log lines in their plain shape, which cost the SDK ~40 µs each (plain-log-notification.ts).
 *  - The protocol version a server offers in `initialize`, to name it if we cannot speak it.
 *  - 2026-07-28 task results, tunnelled past the SDK's result check (tool-tasks.ts).
 */
export class ProgressRouter {
  private counter = 0;
  private readonly handlers = new Map<string, (p: Progress) => void>();

  /** Registers a handler and returns the token to send as `_meta.progressToken`. */
  open(handler: (p: Progress) => void): string {
    const token = `sb-${++this.counter}`;
    this.handlers.set(token, handler);
    return token;
  }

  close(token: string): void {
    this.handlers.delete(token);
  }

  /** Delivers a progress notification; false when it is not one of ours. */
  deliver(message: JSONRPCMessage): boolean {
    const m = message as { method?: string; params?: Progress & { progressToken?: unknown } };
    if (m.method !== 'notifications/progress' || typeof m.params?.progressToken !== 'string') return false;
    const handler = this.handlers.get(m.params.progressToken);
    if (!handler) return false;
    const { progress, total, message: text } = m.params;
    handler({
      progress,
      ...(total !== undefined && { total }),
      ...(text !== undefined && { message: text }),
    });
    return true;
  }
}

/** Where a log line read off the transport goes (the SDK's `notifications/message` handler's sink). */
export type ServerLogSink = (level: string, text: string, logger?: string) => void;

/**
 * Installs the tap; returns a getter for the protocol version the server offered. Progress of
 * our tokens and plain log lines are consumed here: the SDK never sees them (it would only
 * classify them, expensively, and report our tokens as unknown).
 */
export function tapTransport(
  transport: Transport,
  progress: ProgressRouter,
  onServerLog?: ServerLogSink,
): () => string | undefined {
  let offered: string | undefined;
  interceptInbound(transport, (message) => {
    if (progress.deliver(message)) return true;
    const line = onServerLog && plainLogNotification(message);
    if (!line) return false;
    onServerLog!(line.level, line.text, line.logger);
    return true;
  });
  transport.onmessage = (message: JSONRPCMessage) => {
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') offered = version;
    tunnelTaskResult(message);
  };
  return () => offered;
}

type InboundHandler = NonNullable<Transport['onmessage']>;

/**
 * Makes every handler later set as `transport.onmessage` (ours, the SDK's, the direct lane's)
 * skip what `consume` takes. It composes with an accessor the transport has already (the HTTP
 * transport's response tracking sees every message first). A message `consume` leaves may be
 * offered to it again through a chained handler; it must take nothing on that second look,
 * which holds as it takes a message the first time it sees it or never.
 */
function interceptInbound(transport: Transport, consume: (message: JSONRPCMessage) => boolean): void {
  const own = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  let stored = own && 'value' in own ? (own.value as InboundHandler | undefined) : undefined;
  const get = own?.get ? () => own.get!.call(transport) : () => stored;
  const set = own?.set
    ? (handler: InboundHandler | undefined) => own.set!.call(transport, handler)
    : (handler: InboundHandler | undefined) => {
        stored = handler;
      };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get,
    set: (handler: InboundHandler | undefined) =>
      set(
        handler &&
          ((message, extra) => {
            if (!consume(message)) handler.call(transport, message, extra);
          }),
      ),
  });
}
