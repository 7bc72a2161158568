import { setMaxListeners } from 'node:events';
import {
  type FetchLike,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { withTraceHeaders } from '../../core/telemetry/trace-context.js';
import { MALFORMED_RESPONSE_CODE, MalformedResponse, repairResponse } from '../response-shape.js';
import { withWatchedBody } from './watched-body.js';

/**
 * Streamable HTTP, built on the SDK's transport (which already handles JSON and SSE
 * responses, `Mcp-Session-Id`, `MCP-Protocol-Version`, the 2026-07-28 standard headers, SSE
 * `retry:` and `Last-Event-ID`, and the OAuth seams). What it lacks is added here:
 *  - `close()` sends no DELETE for a legacy session (the spec says a client SHOULD); this
 *    one terminates the session first, bounded in time so a dead server cannot hang close.
 *  - A request whose response stream ends without a response (after the SDK's resumption
 *    attempts) waits forever in SDK 2.4.0: the protocol layer never learns of it. Here it is
 *    answered at once with a STREAM_LOST error. That is one request's failure, as an HTTP
 *    error status is: the others go on.
 *  - The first sign that the server is gone — a connection refused or reset, a response body
 *    (a request's stream, the GET stream) that breaks while being read — closes the
 *    transport, so every pending request fails at once, not each when its own stream errors
 *    or its timeout comes.
 *  - Every request has an abort of its own, passed to the SDK as its `requestSignal`: the SDK
 *    aborts it where 2026-07-28 cancels by closing the stream, and we abort it after a 2025
 *    `notifications/cancelled` (a timeout sends one), where the SDK leaves the POST open.
 *  - Response bodies are watched (watched-body.ts): each stays linked to its request's abort
 *    and the transport's until it is done, so a body that dribbles in — JSON, SSE, an error
 *    body, the DELETE on close, the GET stream — is cut when its request times out or is
 *    cancelled and when the transport closes; no socket of a response outlives `close()`.
 *    They are also read for malformed answers (response-shape.ts), which the SDK's parser
 *    would drop (SSE) or fail with an opaque error (JSON); such an answer is delivered as an
 *    error for its id instead. SSE bodies ending in a bare CR keep their last event.
 *  - A request answered with 202 Accepted (no body), or with a JSON body that answers other
 *    ids only, is never answered: the SDK returns from the POST and the request waits for its
 *    timeout. Streamable HTTP says a request gets a JSON or an SSE answer, so such a POST
 *    fails its request at once as a malformed answer. Each POST is told apart by a header of
 *    ours (REQUEST_KEY_HEADER) that the wire fetch removes before anything is sent.
 *  - Some SDK errors drop the HTTP status (#2410); the last failure seen on the wire is kept.
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

/**
 * Names a request's POST for the wire fetch, which removes it (it never reaches the server):
 * the SDK hands the fetch nothing else that says which request a POST carries.
 */
const REQUEST_KEY_HEADER = 'x-switchboard-request-key';

/** How the server answered a request's POST: an SSE stream (answers still to come) or not. */
type AnswerForm = 'sse' | 'json' | 'accepted' | 'other';

/** Reads and removes the request key the SDK copied into the POST's headers. */
function takeRequestKey(init: RequestInit | undefined): string | undefined {
  const headers = init?.headers;
  if (!(headers instanceof Headers)) return undefined;
  const key = headers.get(REQUEST_KEY_HEADER);
  if (key !== null) headers.delete(REQUEST_KEY_HEADER);
  return key ?? undefined;
}

function answerFormOf(response: Response): AnswerForm {
  if (response.status === 202) return 'accepted';
  if (!response.ok) return 'other';
  const type = response.headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'text/event-stream' ? 'sse' : type === 'application/json' ? 'json' : 'other';
}

/** A request in flight: the abort of its POST and stream, and how to unhook it from the caller's signal. */
interface PendingRequest {
  readonly abort: AbortController;
  readonly unlink: () => void;
}

type MessageHandler = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

export class HttpTransport extends StreamableHTTPClientTransport {
  private readonly terminateTimeoutMs: number;
  /** Requests sent and not yet answered, each with the abort of its POST and response stream. */
  private readonly pending = new Map<RequestId, PendingRequest>();
  private closed = false;
  private lost?: string;
  private failure?: HttpFailure;
  /** Each request POST's answer form, by request key, from its response until its send returns. */
  private readonly answerForms = new Map<string, AnswerForm>();
  private nextRequestKey = 0;

  constructor(options: HttpTransportOptions) {
    const hooks: {
      failure?: (f: HttpFailure) => void;
      networkLost?: (why: string, when: 'after-send' | 'now') => void;
      message?: (message: unknown) => void;
      answerForm?: (key: string, form: AnswerForm) => void;
    } = {};
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
        const requestKey = takeRequestKey(init);
        let response: Response;
        try {
          // The active span's W3C headers ride along (a no-op without a tracer provider).
          response = await wire(url, withTraceHeaders({ ...init, signal: own.signal }));
        } catch (error) {
          unlink();
          if (outer?.aborted) throw error;
          hooks.networkLost?.(`cannot reach ${String(url)}: ${causeOf(error)}`, 'after-send');
          // A refusal by the network guard is its own answer (the address, the rule).
          if (isSwitchboardError(error, 'POLICY_DENIED')) throw error;
          throw new SwitchboardError(
            'UPSTREAM_DISCONNECTED',
            `Cannot reach ${String(url)}: ${causeOf(error)}. Check that the server is running.`,
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
        if (requestKey !== undefined) hooks.answerForm?.(requestKey, answerFormOf(response));
        return withWatchedBody(response, {
          onDone: unlink,
          onBroken: (error) =>
            hooks.networkLost?.(`a response from ${String(url)} broke off: ${causeOf(error)}`, 'now'),
          aborted: () => own.signal.aborted,
          onMessage: (message) => hooks.message?.(message),
        });
      }),
    });
    this.terminateTimeoutMs = options.terminateTimeoutMs ?? 2000;
    hooks.failure = (f) => {
      this.failure = f;
    };
    hooks.networkLost = (why, when) => {
      if (this.closed || this.lost !== undefined) return;
      this.lost = why;
      // A refused request: after its send settles, so the caller hears why (the protocol layer
      // then fails every other pending request). A body broken off: before any other stream's
      // error of the same moment is read, so none of them fails on its own first.
      if (when === 'now') queueMicrotask(() => void this.close());
      else setImmediate(() => void this.close());
    };
    hooks.answerForm = (key, form) => {
      if (this.answerForms.has(key)) this.answerForms.set(key, form);
    };
    hooks.message = (message) => {
      // The SDK's parser will drop this answer or fail on it; its request is answered first.
      const repaired = repairResponse(message);
      if (repaired) this.onmessage?.(repaired);
    };
    this.trackResponses();
  }

  /** The most recent non-2xx answer from the server, if any. */
  get lastFailure(): HttpFailure | undefined {
    return this.failure;
  }

  /** Why the transport closed itself (the server is gone), if it did. */
  get lostReason(): string | undefined {
    return this.lost;
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    if (id === undefined) {
      const sent = super.send(message, options);
      // 2025 eras cancel with a notification and the SDK leaves the POST open: the answer is
      // no longer wanted (the server may still send one; the client is to ignore it), and the
      // stream need not wait for the notification's own answer to close.
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined) this.abortRequest(cancelled, 'cancelled');
      return sent;
    }
    const own = new AbortController();
    const outer = options?.requestSignal;
    const relay = () => this.abortRequest(id, outer?.reason);
    this.pending.set(id, { abort: own, unlink: () => outer?.removeEventListener('abort', relay) });
    if (outer?.aborted) relay();
    else outer?.addEventListener('abort', relay, { once: true });
    const key = String(this.nextRequestKey++);
    this.answerForms.set(key, 'other');
    const tracked: TransportSendOptions = {
      ...options,
      headers: { ...options?.headers, [REQUEST_KEY_HEADER]: key },
      requestSignal: own.signal,
      onRequestStreamEnd: () => {
        options?.onRequestStreamEnd?.();
        // When the server is gone, the transport's close fails this request with the rest.
        if (this.lost === undefined && this.settle(id)) this.answerLost(id);
      },
    };
    try {
      await super.send(message, tracked);
    } catch (error) {
      this.settle(id);
      throw error;
    } finally {
      this.unanswered(id, this.answerForms.get(key));
      this.answerForms.delete(key);
    }
  }

  /**
   * After a request's POST is done: a JSON body has delivered its answers by now, and a 202
   * brings none, so a request still pending after either will never be answered.
   */
  private unanswered(id: RequestId, form: AnswerForm | undefined): void {
    if ((form !== 'accepted' && form !== 'json') || this.closed || !this.settle(id)) return;
    const problem =
      form === 'accepted'
        ? 'it answered the request with HTTP 202 Accepted and no body (a request needs a JSON or SSE answer)'
        : 'its JSON body answered no request of this POST';
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: {
        code: MALFORMED_RESPONSE_CODE,
        message: problem,
        data: new MalformedResponse(problem, undefined),
      },
    });
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.pending.keys()]) this.settle(id);
    if (this.sessionId && this.lost === undefined) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.terminateTimeoutMs);
      });
      // Best effort: a server that is gone or refuses DELETE must not block closing.
      await Promise.race([this.terminateSession().catch(() => undefined), timeout]);
      clearTimeout(timer);
    }
    // Aborts every request still open and the GET stream; their bodies with them.
    await super.close();
  }

  /** Aborts request `id`'s POST and response stream, if it is still open. */
  private abortRequest(id: RequestId, reason: unknown): void {
    this.pending.get(id)?.abort.abort(reason);
    this.settle(id);
  }

  /** Forgets request `id` (answered, lost, failed or aborted); false when it was not pending. */
  private settle(id: RequestId): boolean {
    const request = this.pending.get(id);
    if (!request) return false;
    this.pending.delete(id);
    request.unlink();
    return true;
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
            if (id !== undefined && !('method' in message)) this.settle(id);
            handler(message, extra);
          });
      },
    });
  }
}

/** The request a `notifications/cancelled` cancels, if `message` is one. */
function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/** The reason fetch gives for a failure (undici puts the socket's error in `cause`). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Error ? `${describeError(error)} (${cause.message})` : describeError(error);
}
