import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { jsonRpcError } from './json-rpc-error.js';
import { ServedMessages } from './served-messages.js';

/**
 * The server side of the HTTP+SSE transport of MCP 2024-11-05 ("Transports", HTTP with SSE),
 * for clients that predate Streamable HTTP: a `GET` opens an event stream whose first event,
 * `endpoint`, names the URL to `POST` messages to; every server message is a `message` event
 * on that stream, and a `POST` is only acknowledged (202).
 *
 * The SDK v2 server package has no such transport (v1's `SSEServerTransport` was tied to
 * `node:http` and deprecated, and v2 dropped it), so this is a small one on web-standard
 * `Request`/`Response` with a `ReadableStream`, which is what the gateway's chain speaks.
 * One instance is one session: its stream ending (the client left, the gateway closed it) ends
 * the session.
 */
export interface LegacySseTransportOptions {
  readonly sessionId: string;
  /** What the `endpoint` event announces: the path and query of the POST URL. */
  readonly postUrl: string;
  /** Milliseconds between `: keepalive` comments, so proxies keep an idle stream open. Default 15 s. */
  readonly keepAliveMs?: number;
  /** Bytes the client may leave unread on the stream before the session is closed. Default 8 MiB. */
  readonly maxQueuedBytes?: number;
  /** The principal the session is served for: its requests' SERVER spans say so. */
  readonly principal?: string;
}

const encoder = new TextEncoder();

export class LegacySseTransport implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private controller?: ReadableStreamDefaultController<Uint8Array>;
  private keepAlive?: NodeJS.Timeout;
  private opened = false;
  private closed = false;
  /** A SERVER span per POSTed request, ended when its answer goes on the stream (served-messages.ts). */
  private readonly served: ServedMessages;

  constructor(private readonly options: LegacySseTransportOptions) {
    this.sessionId = options.sessionId;
    this.served = new ServedMessages(() => ({
      principal: options.principal ?? 'unknown',
      transport: 'tcp',
      sessionId: options.sessionId,
    }));
  }

  /** The SDK tells the transport the negotiated version after `initialize`. */
  setProtocolVersion(version: string): void {
    this.served.setProtocolVersion(version);
  }

  /** Nothing to do: the stream is opened by `open()`, which answers the client's GET. */
  async start(): Promise<void> {}

  /** The response to the opening GET: the event stream, starting with the `endpoint` event. Once only. */
  open(): Response {
    if (this.opened) throw new Error('The SSE stream of this session is already open.');
    this.opened = true;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
          controller.enqueue(encoder.encode(`event: endpoint\ndata: ${this.options.postUrl}\n\n`));
        },
        // The client went away: the session cannot answer anyone any more.
        cancel: () => void this.close(),
      },
      { highWaterMark: this.options.maxQueuedBytes ?? 8 * 1024 * 1024, size: (chunk) => chunk.byteLength },
    );
    const every = this.options.keepAliveMs ?? 15_000;
    if (every > 0) {
      this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), every);
      this.keepAlive.unref();
    }
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      },
    });
  }

  /**
   * One POSTed message (its body already parsed): handed to the server, answered 202 — the
   * reply, if any, goes on the stream. 2024-11-05 has no batches, so an array is refused.
   */
  receive(body: unknown, request: Request): Response {
    if (this.closed) return jsonRpcError(404, -32001, 'Session not found; open a new SSE stream.');
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(body);
    } catch {
      return jsonRpcError(400, -32600, 'Invalid Request: the body must be one JSON-RPC message.');
    }
    this.served.deliver(message, () => this.onmessage?.(message, { request }), {
      header: (name) => request.headers.get(name),
    });
    return new Response('Accepted', { status: 202, headers: { 'content-type': 'text/plain' } });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !this.controller) throw new Error('The SSE stream of this session is closed.');
    this.served.sent(message);
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.served.closed();
    try {
      this.controller?.close();
    } catch {
      // Already closed or cancelled by the client.
    }
    this.onclose?.();
  }

  private write(text: string): void {
    if (this.closed || !this.controller) return;
    // A client that stops reading must not make the gateway buffer without end.
    if ((this.controller.desiredSize ?? 0) < 0) {
      this.onerror?.(new Error(`SSE session ${this.sessionId}: the client stopped reading; closing it.`));
      void this.close();
      return;
    }
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      void this.close();
    }
  }
}
