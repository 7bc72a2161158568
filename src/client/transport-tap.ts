import {
  type JSONRPCMessage,
  type Progress,
  type RequestId,
  SdkHttpError,
  type Transport,
} from '@modelcontextprotocol/client';
import { ListWalks } from './list-walk.js';
import { plainLogNotification } from './plain-log-notification.js';
import { repairResponse } from './response-shape.js';
import { tunnelTaskResult } from './tool-tasks.js';

/**
 * What the connection reads off and writes onto the transport, around the SDK. Two layers:
 *
 * The tap proper, a handler the SDK's `connect` chains (with the same message object):
 *  - The protocol version a server offers in `initialize`, to name it if we cannot speak it.
 *  - 2026-07-28 task results, tunnelled past the SDK's result check (tool-tasks.ts).
 *
 * The wire watch, beneath every handler that is ever set — the SDK's probe window during
 * connect, its protocol layer, the direct lane — and around `send`:
 *  - progress of our own tokens, consumed (no handler sees it): the SDK dispatches
 *    notifications a tick after responses, so its own progress handler would lose the last
 *    event before a result, and it would report our tokens as unknown;
 *  - plain log lines, consumed and handed to the log sink: the SDK's classification of each
 *    costs ~40 µs (plain-log-notification.ts);
 *  - malformed answers become errors for their id (response-shape.ts);
 *  - whether the `server/discover` probe got an answer (a timeout is no verdict; era.ts);
 *  - the pages of list walks under way (list-walk.ts).
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

/** What the tap saw of one connect attempt's transport. */
export interface WireTap {
  /** The protocol version the server offered in its `initialize` result, if one came. */
  offered(): string | undefined;
  /** `none`: no `server/discover` went out; else whether one got an answer (a 4xx HTTP status counts). */
  probe(): 'none' | 'answered' | 'unanswered';
  /**
   * The HTTP 5xx the probe failed with before any `initialize` went out: the server failing,
   * not an answer about the method, so no verdict (connect-recovery.ts falls back once).
   */
  probeServerError(): number | undefined;
  /** The list walks under way on this transport. */
  readonly walks: ListWalks;
}

type Handler = (message: JSONRPCMessage, extra?: unknown) => void;

/** Where a log line read off the transport goes (the SDK's `notifications/message` handler's sink). */
export type ServerLogSink = (level: string, text: string, logger?: string) => void;

/** Installs the tap and the wire watch on a transport not yet connected. */
export function tapTransport(
  transport: Transport,
  progress: ProgressRouter,
  onServerLog?: ServerLogSink,
): WireTap {
  const walks = new ListWalks();
  const probes = new Set<RequestId>();
  let answered = false;
  let serverError: number | undefined;
  // Once `initialize` goes out, the SDK has given up on the probe: a late answer decided nothing.
  let fellBack = false;
  interceptInbound(transport, (message) => {
    if (progress.deliver(message)) return undefined;
    const line = onServerLog && plainLogNotification(message);
    if (line) {
      onServerLog!(line.level, line.text, line.logger);
      return undefined;
    }
    const delivered = repairResponse(message) ?? message;
    const id = (delivered as { id?: RequestId }).id;
    if (!fellBack && id !== undefined && probes.has(id) && !('method' in delivered)) answered = true;
    walks.inbound(delivered);
    return delivered;
  });
  interceptOutbound(transport, {
    before: (message) => {
      const { method, id } = message as { method?: unknown; id?: RequestId };
      if (method === 'server/discover' && id !== undefined) probes.add(id);
      if (method === 'initialize' && !answered) fellBack = true;
      walks.outbound(message);
    },
    failed: (message, error) => {
      const id = (message as { id?: RequestId }).id;
      // A 4xx is the server's answer ("no such method" as 400, 404, 405…); a 5xx is it failing.
      if (!fellBack && id !== undefined && probes.has(id) && error instanceof SdkHttpError) {
        if (error.status >= 500) serverError = error.status;
        else answered = true;
      }
    },
  });
  let offered: string | undefined;
  transport.onmessage = (message: JSONRPCMessage) => {
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') offered = version;
    tunnelTaskResult(message);
  };
  return {
    offered: () => offered,
    probe: () => (probes.size === 0 ? 'none' : answered ? 'answered' : 'unanswered'),
    probeServerError: () => serverError,
    walks,
  };
}

/**
 * Runs `inspect` on every message the transport delivers, before whichever handler is set to
 * receive it, and hands that handler what `inspect` returns (nothing: consumed). Handlers are wrapped as they are
 * set: the protocol layer and the lane read the handler before theirs and chain it, so one
 * message may pass several wrappers; it is inspected once. A transport whose `onmessage` is
 * an accessor already (HttpTransport tracks its answers so) keeps it, under ours.
 */
export function interceptInbound(
  transport: Transport,
  inspect: (message: JSONRPCMessage) => JSONRPCMessage | undefined,
): void {
  const seen = new WeakSet<object>();
  const wrap = (handler: Handler): Handler => {
    return (message, extra) => {
      let delivered: JSONRPCMessage | undefined = message;
      if (typeof message === 'object' && message !== null && !seen.has(message)) {
        delivered = inspect(message);
        seen.add(message);
        if (delivered) seen.add(delivered);
      }
      if (delivered) handler(delivered, extra);
    };
  };
  const own = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  const read = own?.get ? () => own.get!.call(transport) as Handler | undefined : undefined;
  const write = own?.set ? (handler: Handler | undefined) => own.set!.call(transport, handler) : undefined;
  let current = (read ? undefined : (own?.value as Handler | undefined)) ?? undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (read ? read() : current),
    set: (handler: Handler | undefined) => {
      const wrapped = handler && wrap(handler);
      if (write) write(wrapped);
      else current = wrapped;
    },
  });
  const existing = read ? read() : current;
  if (existing) (transport as { onmessage?: Handler }).onmessage = existing;
}

/** Calls `before` for every message sent (it may throw to refuse it), and `failed` when a send fails. */
function interceptOutbound(
  transport: Transport,
  hooks: {
    readonly before: (message: JSONRPCMessage) => void;
    readonly failed: (message: JSONRPCMessage, error: unknown) => void;
  },
): void {
  if (typeof transport.send !== 'function') return;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    try {
      hooks.before(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return send(message, options).catch((error: unknown) => {
      hooks.failed(message, error);
      throw error;
    });
  };
}
