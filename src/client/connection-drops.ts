import type { Client, Transport } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../core/errors.js';
import { HttpTransport } from './transports/http.js';
import { SseTransport } from './transports/sse.js';
import { StdioTransport } from './transports/stdio.js';

/**
 * What a connection's drop leaves behind: its error (how a stdio server ended: its exit
 * status, or why the connection ended without or before an exit, with `details.reason` to
 * branch on), the requests it cut off, and the transport still ending what the server left
 * running, which the connection's `close()` waits for.
 */
export class ConnectionDrops {
  private readonly errors = new WeakMap<Client, SwitchboardError>();
  private closing?: Promise<void>;

  /** The server went away under `client`: the error to report. */
  dropped(server: string, client: Client, transport: Transport): SwitchboardError {
    const error = disconnectError(server, transport);
    this.errors.set(client, error);
    // The transport may still be killing what the server started.
    this.closing = transport.close().catch(() => undefined);
    return error;
  }

  /**
   * A request of `client` cut off by its drop: the SDK fails it with a bare "connection closed",
   * so where the drop's cause is known beyond an exit status, the request says that cause.
   */
  cutOff(error: SwitchboardError, client: Client, method: string): SwitchboardError {
    const drop = this.errors.get(client);
    if (!drop?.details.reason || error.code !== 'UPSTREAM_DISCONNECTED') return error;
    return new SwitchboardError('UPSTREAM_DISCONNECTED', `${method} got no answer. ${drop.message}`, {
      cause: error,
      details: drop.details,
    });
  }

  /** Resolves once the last dropped transport has ended everything it started. */
  get ending(): Promise<void> | undefined {
    return this.closing;
  }
}

function disconnectError(server: string, transport: Transport): SwitchboardError {
  const exit = transport instanceof StdioTransport ? transport.exitInfo : undefined;
  const reason = transport instanceof StdioTransport ? transport.closeReason : undefined;
  const lost =
    transport instanceof HttpTransport || transport instanceof SseTransport
      ? transport.lostReason
      : undefined;
  const how = reason
    ? `: ${reason.text}`
    : exit
      ? ` (exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`
      : lost
        ? ` (${lost})`
        : '';
  return new SwitchboardError(
    'UPSTREAM_DISCONNECTED',
    `Server "${server}" disconnected${how}. Reconnect to start it again; see its log for the cause.`,
    {
      details: {
        server,
        ...(exit && { exitCode: exit.code, signal: exit.signal }),
        ...(reason && { reason: reason.kind }),
      },
    },
  );
}
