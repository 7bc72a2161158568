import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/client';

/**
 * Streamable HTTP, built on the SDK's transport (which already handles JSON and SSE
 * responses, `Mcp-Session-Id`, `MCP-Protocol-Version`, the 2026-07-28 standard headers, SSE
 * `retry:` and `Last-Event-ID`, and the OAuth seams). What it lacks is added here:
 *  - `close()` sends no DELETE for a legacy session (the spec says a client SHOULD); this
 *    one terminates the session first, bounded in time so a dead server cannot hang close.
 * Session expiry (HTTP 404 → re-initialize, SDK #1708) needs a new handshake, so it lives in
 * the Connection, which owns the protocol state.
 */
export interface HttpTransportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** How long the DELETE on close may take. Default 2 s. */
  readonly terminateTimeoutMs?: number;
  readonly sdk?: Omit<StreamableHTTPClientTransportOptions, 'requestInit'>;
}

/** The last HTTP failure seen on the wire, kept because some SDK errors drop it (#2410). */
export interface HttpFailure {
  readonly status: number;
  readonly body: string;
}

export class HttpTransport extends StreamableHTTPClientTransport {
  private readonly terminateTimeoutMs: number;
  private closed = false;
  private failure?: HttpFailure;

  constructor(options: HttpTransportOptions) {
    const recorder: { onFailure?: (f: HttpFailure) => void } = {};
    super(new URL(options.url), {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (!response.ok && response.status !== 405) {
          const body = await response
            .clone()
            .text()
            .catch(() => '');
          recorder.onFailure?.({ status: response.status, body: body.slice(0, 2000) });
        }
        return response;
      },
      // GET-stream resumption: the SDK default gives up after 2 tries (#2098).
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 8,
      },
      ...options.sdk,
      requestInit: { headers: { ...options.headers } },
    });
    this.terminateTimeoutMs = options.terminateTimeoutMs ?? 2000;
    recorder.onFailure = (f) => {
      this.failure = f;
    };
  }

  /** The most recent non-2xx answer from the server, if any. */
  get lastFailure(): HttpFailure | undefined {
    return this.failure;
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sessionId) {
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
}

/** The legacy HTTP+SSE transport (2024-11-05 servers): the SDK's, with our headers. */
export function createSseTransport(options: HttpTransportOptions): SSEClientTransport {
  return new SSEClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    eventSourceInit: {
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        for (const [k, v] of Object.entries(options.headers)) headers.set(k, v);
        return fetch(url, { ...init, headers });
      },
    },
  });
}
