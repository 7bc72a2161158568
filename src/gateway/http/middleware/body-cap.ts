import type { Middleware, RequestBody } from '../context.js';
import { HttpError } from '../http-error.js';

/**
 * Reads the request body once (`ctx.unreadBody`: from the adapter, or the request's own stream
 * for in-process callers), refusing it with 413 as soon as more than `maxBytes` arrived.
 * A `Content-Length` above the cap is refused before reading, but the count is kept while
 * reading too: the header can lie, and a chunked body has none. Downstream steps get the bytes
 * as `ctx.body`, so nothing reads the socket twice and nothing after this step can be made to
 * buffer more than the cap. A request that came with its own body stream (in-process use) is
 * replaced by one whose body is those bytes; the adapter's request, which never had a body,
 * is handed on as it is (and not built here): its body is `ctx.body`.
 */
export function bodyCap(options: { maxBytes: number }): Middleware {
  const { maxBytes } = options;
  const tooLarge = () =>
    new HttpError(
      413,
      `The request body is larger than this gateway accepts (${maxBytes} bytes). Send less.`,
    );
  return async (ctx, next) => {
    const unread = ctx.unreadBody;
    if (unread === undefined) return next();
    ctx.unreadBody = undefined;
    const declared = ctx.head.header('content-length');
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
      unread.discard();
      throw tooLarge();
    }
    const body = await unread.read(maxBytes);
    if (body === undefined) throw tooLarge();
    ctx.body = body;
    if (!(unread instanceof StreamedBody)) return next();
    const { request } = ctx;
    const headers = new Headers(request.headers);
    headers.set('content-length', String(body.byteLength));
    headers.delete('transfer-encoding');
    ctx.request = new Request(request.url, { method: request.method, headers, body, signal: ctx.signal });
    return next();
  };
}

/** The body stream of a request handed in whole (in-process use), for the body cap to read. */
export function streamedBody(stream: ReadableStream<Uint8Array>): RequestBody {
  return new StreamedBody(stream);
}

class StreamedBody implements RequestBody {
  constructor(private readonly stream: ReadableStream<Uint8Array>) {}
  read(maxBytes: number): Promise<Uint8Array | undefined> {
    return readCapped(this.stream, maxBytes);
  }
  discard(): void {
    this.stream.cancel().catch(() => {});
  }
}

/** The whole stream, or undefined (and the stream cancelled) once it passes `maxBytes`. */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
