/**
 * A Server-Sent Events response (HTML Living Standard §9.2): `text/event-stream`, one event
 * per `send`, and a comment line every 15 s so that proxies and browsers keep an idle stream
 * open. It ends when the client goes away (`signal`), when the reader cancels, or on
 * `close()`; `onClose` listeners run once, whichever came first, so callers detach what they
 * attached. A client that stops reading is dropped once too much is queued for it, rather
 * than let its queue grow without bound.
 */

/** One open event stream: its response, and how to send on it and end it. */
export interface SseStream {
  readonly response: Response;
  readonly closed: boolean;
  /** Sends one event: `event:` name, optional `id:`, and `data` as JSON. Ignored once closed. */
  send(event: string, data: unknown, id?: string | number): void;
  /** Ends the stream (the client sees it end). */
  close(): void;
  /** Runs `listener` when the stream ends, at once if it has. */
  onClose(listener: () => void): void;
}

/** Options of `openSse`. */
export interface SseOptions {
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
  /** Milliseconds between keep-alive comments; default 15 000. */
  readonly heartbeatMs?: number;
  /** Bytes queued for a client that does not read, past which it is dropped; default 4 MiB. */
  readonly maxQueuedBytes?: number;
}

/** How often an idle stream gets a comment line. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** Opens an event stream; return its `response` from the handler. */
export function openSse(options: SseOptions): SseStream {
  const encoder = new TextEncoder();
  const maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  const listeners: (() => void)[] = [];
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;

  const finish = (endStream: boolean) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    options.signal.removeEventListener('abort', onAbort);
    if (endStream) {
      try {
        controller?.close();
      } catch {
        // Already errored or cancelled by the reader.
      }
    }
    for (const listener of listeners.splice(0)) listener();
  };
  const onAbort = () => finish(true);

  const enqueue = (text: string) => {
    if (closed || !controller) return;
    controller.enqueue(encoder.encode(text));
    // desiredSize goes below zero by the bytes queued beyond the high-water mark.
    if ((controller.desiredSize ?? 0) < -maxQueued) finish(true);
  };

  const heartbeat = setInterval(
    () => enqueue(': keep-alive\n\n'),
    options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
  );
  // The stream's end is its listeners' business; a timer must not keep the process alive.
  heartbeat.unref?.();
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        finish(false);
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  if (options.signal.aborted) finish(true);
  else options.signal.addEventListener('abort', onAbort, { once: true });

  return {
    response: new Response(body, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        // Proxies (nginx) would otherwise hold events back until a buffer fills.
        'X-Accel-Buffering': 'no',
      },
    }),
    get closed() {
      return closed;
    },
    send(event, data, id) {
      const idLine = id === undefined ? '' : `id: ${String(id).replace(/[\r\n]/g, '')}\n`;
      // JSON has no raw line breaks, so the data is one `data:` line.
      enqueue(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
    },
    close: () => finish(true),
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}
