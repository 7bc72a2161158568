import type { JSONRPCMessage, Progress, Transport } from '@modelcontextprotocol/client';
import { tunnelTaskResult } from './tool-tasks.js';

/**
 * What the connection reads off the transport before the SDK sees a message. The SDK's
 * `connect` chains a handler set on the transport beforehand, with the same message object.
 *  - Progress, routed by our own tokens: the SDK dispatches notifications a tick after
 *    responses, so its own progress handler loses the last event before a result.
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

/** Installs the tap; returns a getter for the protocol version the server offered. */
export function tapTransport(transport: Transport, progress: ProgressRouter): () => string | undefined {
  let offered: string | undefined;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (progress.deliver(message)) return;
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') offered = version;
    tunnelTaskResult(message);
  };
  return () => offered;
}
