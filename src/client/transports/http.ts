import { setMaxListeners } from 'node:events';
import {
  type FetchLike,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { withWatchedBody } from './watched-body.js';

/**
 * Streamable HTTP, built on the SDK's transport (which already handles JSON and SSE
 * responses, `Mcp-Session-Id`, `MCP-Protocol-Version`, the 2026-07-28 standard headers, SSE
 * `retry:` and `Last-Event-ID`, and the OAuth seams). What it lacks is added here:
 *  - `close()` sends no DELETE for a legacy session (the spec says a client SHOULD); this
 *    one terminates the session first, bounded in time so a dead server cannot hang close.
 *  - A request whose response stream ends without a response (after the SDK's resumption
 *    attempts) waits forever in SDK 2.4.0: the protocol layer never learns of it. Here it is
 *    answered at once with a STREAM_LOST error.
 *  - A network failure (connection refused or reset) means the server is gone: the transport
 *    closes, so every pending request fails at once instead of waiting for its timeout.
 *  - Some SDK errors drop the HTTP status (#2410); the last failure seen on the wire is kept.
 *  - Response bodies are watched (watched-body.ts): per-request abort signals that do not
 *    pile up on the transport's, and SSE bodies ending in a bare CR keep their last event.
 * Session expiry (HTTP 404 → re-initialize, SDK #1708) needs a new handshake, so it lives in
 * the Connection, which owns the protocol state.
 */
export interface HttpTransportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** How long the DELETE on close may take. Default 2 s. */
  readonly terminateTimeoutMs?: number;
  readonly sdk?: Omit<StreamableHTTPClientTransportOptions, 'requestInit' | 'fetch'>;
  /**
   * Wraps the fetch requests go through (OAuth: DPoP proofs, step-up). It sits outside the
   * watching below, so what it throws reaches the caller as is and a request it sends again
   * is watched like any other.
   */
  readonly fetchMiddleware?: (next: FetchLike) => FetchLike;
  /**
   * The fetch that goes on the wire (default: the global one). A guarded server's is the
   * network guard's (guarded-fetch.ts); its POLICY_DENIED refusals reach the caller as they are.
   */
  readonly fetch?: FetchLike;
}

/** The last HTTP failure seen on the wire. */
export interface HttpFailure {
  readonly status: number;
  readonly body: string;
}

/** JSON-RPC error code (implementation-defined range) for a response stream lost mid-request. */
export const STREAM_LOST_CODE = -32099;

const raisedLimit = new WeakSet<AbortSignal>();

type MessageHandler = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

export class HttpTransport extends StreamableHTTPClientTransport {
  private readonly terminateTimeoutMs: number;
  private readonly pending = new Set<RequestId>();
  private closed = false;
  private lost = false;
  private failure?: HttpFailure;

  constructor(options: HttpTransportOptions) {
    const hooks: { failure?: (f: HttpFailure) => void; networkLost?: () => void } = {};
    const wire = options.fetch ?? fetch;
    super(new URL(options.url), {
      // GET-stream resumption: the SDK default gives up after 2 tries (#2098).
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 8,
      },
      ...options.sdk,
      requestInit: { headers: { ...options.headers } },
      fetch: (options.fetchMiddleware ?? ((next: FetchLike) => next))(async (url, init) => {
        // A signal of this request's own, linked to the transport's until the body is done
        // (see watched-body.ts for why).
        const outer = init?.signal ?? undefined;
        // One relay per request in flight: as many as the concurrency, by design.
        if (outer && !raisedLimit.has(outer)) {
          setMaxListeners(10_000, outer);
          raisedLimit.add(outer);
        }
        const own = new AbortController();
        const relay = () => own.abort(outer?.reason);
        if (outer?.aborted) relay();
        else outer?.addEventListener('abort', relay, { once: true });
        const unlink = () => outer?.removeEventListener('abort', relay);
        let response: Response;
        try {
          response = await wire(url, { ...init, signal: own.signal });
        } catch (error) {
          unlink();
          if (outer?.aborted) throw error;
          hooks.networkLost?.();
          if (isSwitchboardError(error, 'POLICY_DENIED')) throw error;
          throw new SwitchboardError(
            'UPSTREAM_DISCONNECTED',
            `Cannot reach ${String(url)}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}. Check that the server is running.`,
            { cause: error },
          );
        }
        if (!response.ok && response.status !== 405) {
          const body = await response
            .clone()
            .text()
            .catch(() => '');
          hooks.failure?.({ status: response.status, body: body.slice(0, 2000) });
        }
        return withWatchedBody(response, unlink);
      }),
    });
    this.terminateTimeoutMs = options.terminateTimeoutMs ?? 2000;
    hooks.failure = (f) => {
      this.failure = f;
    };
    hooks.networkLost = () => {
      if (this.closed || this.lost) return;
      this.lost = true;
      // After the current send settles: the protocol layer then fails every pending request.
      setImmediate(() => void this.close());
    };
    this.trackResponses();
  }

  /** The most recent non-2xx answer from the server, if any. */
  get lastFailure(): HttpFailure | undefined {
    return this.failure;
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    if (id === undefined) return super.send(message, options);
    this.pending.add(id);
    options?.requestSignal?.addEventListener('abort', () => this.pending.delete(id), { once: true });
    const tracked: TransportSendOptions = {
      ...options,
      onRequestStreamEnd: () => {
        options?.onRequestStreamEnd?.();
        if (this.pending.delete(id)) this.answerLost(id);
      },
    };
    try {
      await super.send(message, tracked);
    } catch (error) {
      this.pending.delete(id);
      throw error;
    }
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pending.clear();
    if (this.sessionId && !this.lost) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.terminateTimeoutMs);
      });
      // Best effort: a server that is gone or refuses DELETE must not block closing.
      await Promise.race([this.terminateSession().catch(() => undefined), timeout]);
      clearTimeout(timer);
    }
    await super.close();
  }

  private answerLost(id: RequestId): void {
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: { code: STREAM_LOST_CODE, message: 'the server closed the response stream without answering' },
    });
  }

  /**
   * `onmessage` is a plain field the protocol layer sets; it is turned into an accessor so
   * every response delivered to it first clears its request from `pending`.
   */
  private trackResponses(): void {
    let current: MessageHandler | undefined;
    Object.defineProperty(this, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => current,
      set: (handler: MessageHandler | undefined) => {
        // Wrap the handler as it is set (not a reference to "the latest" one): the protocol
        // layer reads the old value and chains it, which must not loop back into itself.
        current =
          handler &&
          ((message, extra) => {
            const id = (message as { id?: RequestId; method?: string }).id;
            if (id !== undefined && !('method' in message)) this.pending.delete(id);
            handler(message, extra);
          });
      },
    });
  }
}

/** The legacy HTTP+SSE transport (2024-11-05 servers): the SDK's, with our headers and token. */
export function createSseTransport(options: HttpTransportOptions): SSEClientTransport {
  const wire = options.fetch ?? fetch;
  return new SSEClientTransport(new URL(options.url), {
    ...(options.sdk?.authProvider && { authProvider: options.sdk.authProvider }),
    // The POSTs go through `fetch`, the event stream through `eventSourceInit.fetch`.
    ...(options.fetch && { fetch: options.fetch }),
    requestInit: { headers: { ...options.headers } },
    eventSourceInit: {
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        for (const [k, v] of Object.entries(options.headers)) headers.set(k, v);
        return wire(url, { ...init, headers });
      },
    },
  });
}
