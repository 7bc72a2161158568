import {
  type FetchLike,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
} from '@modelcontextprotocol/client';
import { isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { withTraceHeaders } from '../../core/telemetry/trace-context.js';
import { repairResponse } from '../response-shape.js';
import type { HttpFailure, HttpTransportOptions } from './http.js';
import { withWatchedBody } from './watched-body.js';

/**
 * The legacy HTTP+SSE transport (2024-11-05 servers): the SDK's SSEClientTransport (which
 * keeps its OAuth, redirect and endpoint-origin handling), with what it gets wrong in SDK
 * 2.4.0 put right here:
 *  - `start()` waits for the `endpoint` event with no bound (the connect timeout covers only
 *    `initialize`), and a `close()` meanwhile never settles it. Here it fails at the connect
 *    timeout, and at once on close.
 *  - Its EventSource reconnects when the event stream ends (FIN) or breaks (a reset, the
 *    server's death), and the SDK never tells the protocol layer, so pending calls wait for
 *    their timeouts. In this transport the stream carries every answer and a new stream is a
 *    new session the server never saw initialized, so its loss is the server's loss: the
 *    transport closes at once and every pending call fails, as on stdio and Streamable HTTP.
 *    So does a POST that cannot reach the server.
 *  - It drops an answer that fails its JSON-RPC schema (right id, `result` not an object),
 *    so the call waits for its timeout; here such an answer becomes an error for its id
 *    (response-shape.ts), read off the stream before the SDK parses it.
 *  - A failed POST is a plain Error carrying the whole body (an HTML page); here it is an
 *    SdkHttpError with the status, so it maps to UPSTREAM_HTTP with a short excerpt.
 */
export interface SseTransportOptions extends HttpTransportOptions {
  /** How long to wait for the `endpoint` event (the connect timeout). */
  readonly endpointTimeoutMs: number;
}

export class SseTransport extends SSEClientTransport {
  private readonly endpointTimeoutMs: number;
  private closed = false;
  private lost?: string;
  private failure?: HttpFailure;
  private abortStart?: (error: unknown) => void;

  constructor(options: SseTransportOptions) {
    const hooks: { lost?: (why: string) => void; failure?: (f: HttpFailure) => void } = {};
    const wire = options.fetch ?? fetch;
    const post: FetchLike = async (url, init) => {
      let response: Response;
      try {
        response = await wire(url, withTraceHeaders(init));
      } catch (error) {
        if (init?.signal?.aborted) throw error;
        if (isSwitchboardError(error, 'POLICY_DENIED')) throw error;
        hooks.lost?.(`cannot reach ${String(url)}`);
        throw new SwitchboardError(
          'UPSTREAM_DISCONNECTED',
          `Cannot reach ${String(url)}. Check that the server is running.`,
          { cause: error },
        );
      }
      // 401 is the SDK's to answer (its authProvider); any other failure is the call's, with its status.
      if (!response.ok && response.status !== 401) {
        const text = (await response.text().catch(() => '')).slice(0, 2000);
        hooks.failure?.({ status: response.status, body: text });
        throw new SdkHttpError(
          SdkErrorCode.ClientHttpNotImplemented,
          `Error POSTing to endpoint (HTTP ${response.status})`,
          {
            status: response.status,
            statusText: response.statusText,
            text,
          },
        );
      }
      return response;
    };
    super(new URL(options.url), {
      ...(options.sdk?.authProvider && { authProvider: options.sdk.authProvider }),
      fetch: post,
      requestInit: { headers: { ...options.headers } },
      eventSourceInit: {
        fetch: async (url, init) => {
          const headers = new Headers(init?.headers);
          for (const [k, v] of Object.entries(options.headers)) headers.set(k, v);
          const response = await wire(url, { ...init, headers });
          if (!response.ok) return response;
          let broken = false;
          return withWatchedBody(response, {
            // The stream ended (FIN): answers can no longer come.
            onDone: () => {
              if (!broken) hooks.lost?.(`the event stream from ${String(url)} ended`);
            },
            onBroken: () => {
              broken = true;
              hooks.lost?.(`the event stream from ${String(url)} broke off`);
            },
            aborted: () => init?.signal?.aborted === true,
            onMessage: (message) => {
              // The SDK's parser would drop this answer; its request is answered first.
              const repaired = repairResponse(message);
              if (repaired) this.onmessage?.(repaired);
            },
          });
        },
      },
    });
    this.endpointTimeoutMs = options.endpointTimeoutMs;
    hooks.lost = (why) => {
      if (this.closed || this.lost !== undefined) return;
      this.lost = why;
      queueMicrotask(() => void this.close());
    };
    hooks.failure = (f) => {
      this.failure = f;
    };
  }

  /** The most recent non-2xx answer to a POST, if any. */
  get lastFailure(): HttpFailure | undefined {
    return this.failure;
  }

  /** Why the transport closed itself (the server is gone), if it did. */
  get lostReason(): string | undefined {
    return this.lost;
  }

  override async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<never>((_, reject) => {
      this.abortStart = reject;
      timer = setTimeout(
        () =>
          reject(
            new SdkError(
              SdkErrorCode.RequestTimeout,
              `no endpoint event within ${this.endpointTimeoutMs} ms: the event stream opened but never named the URL to post messages to. Check that the URL is the server's legacy SSE endpoint (often /sse); a Streamable HTTP server needs "transport": "http", not "sse"`,
            ),
          ),
        this.endpointTimeoutMs,
      );
    });
    try {
      await Promise.race([super.start(), bounded]);
    } finally {
      clearTimeout(timer);
      this.abortStart = undefined;
    }
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortStart?.(
      new SwitchboardError('UPSTREAM_DISCONNECTED', this.lost ?? 'the transport was closed while connecting'),
    );
    await super.close();
  }
}
