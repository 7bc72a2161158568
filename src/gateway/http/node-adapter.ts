import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebHandler } from './context.js';

/** A running listener. `close()` stops accepting and ends every connection, streams included. */
export interface NodeListener {
  /** `http://host:port`, with the port actually bound (for `port: 0`). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  /** Told about failures that never reach a client (the handler threw, a write failed). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Serves a web-standard handler on `node:http`. Each request becomes a `Request` whose body
 * streams from the socket (nothing is buffered here; the chain's body cap reads it) and whose
 * signal aborts when the client goes away; each `Response` is written as it streams, SSE
 * frames included, waiting for `drain` when the client reads slowly.
 */
export function listen(handler: WebHandler, options: ListenOptions): Promise<NodeListener> {
  const server = createServer((req, res) => {
    serve(handler, req, res).catch((error: unknown) => {
      options.onError?.(error);
      if (!res.headersSent) res.writeHead(500, { connection: 'close' });
      res.end();
    });
  });
  let closing: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve({
        url: `http://${bracketed(address.address)}:${address.port}`,
        port: address.port,
        close: () => {
          closing ??= new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            // Active connections (an SSE stream, a slow upload) would keep close() waiting forever.
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}

function bracketed(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

async function serve(handler: WebHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
  });
  const body = hasBody(req) ? bodyStream(req) : undefined;
  let request: Request;
  try {
    request = new Request(requestUrl(req), {
      method: req.method ?? 'GET',
      headers: requestHeaders(req),
      signal: controller.signal,
      ...(body && { body: body.stream, duplex: 'half' }),
    } as RequestInit);
  } catch {
    // Node parsed it, but it is no valid fetch request (a TRACE, a Host that is no authority).
    res.writeHead(400, { connection: 'close', 'content-type': 'text/plain' }).end('Bad request\n');
    return;
  }
  const response = await handler(request, {
    remoteAddress: req.socket.remoteAddress ?? '',
    ...(req.socket.localPort !== undefined && { localPort: req.socket.localPort }),
  });
  await writeResponse(res, response, {
    head: req.method === 'HEAD',
    // A body left unread (a refused upload) is not drained: closing the connection is cheaper,
    // and the next request could not be parsed from the middle of this one anyway.
    close: body !== undefined && !body.ended(),
  });
}

function hasBody(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return false;
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The URL from the Host header (the host-origin step judges that header; a URL built from it
 * lets the metadata document name the host the client used), or the local address when the
 * header is missing or not a plain authority. Only the path of the request line is used: an
 * absolute-form target cannot choose the URL's origin.
 */
function requestUrl(req: IncomingMessage): string {
  const path = req.url?.startsWith('/') ? req.url : '/';
  const host = req.headers.host;
  const authority =
    host !== undefined && /^[A-Za-z0-9.\-[\]:]+$/.test(host)
      ? host
      : `${bracketed(req.socket.localAddress ?? '127.0.0.1')}:${req.socket.localPort ?? 0}`;
  return `http://${authority}${path}`;
}

function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return headers;
}

/** The request body as a web stream that pauses the socket while the reader is behind. */
function bodyStream(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; ended: () => boolean } {
  let settled = false;
  let ended = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        req.off('data', onData);
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      const onData = (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      };
      req.on('data', onData);
      req.once('end', () => {
        ended = true;
        finish();
      });
      req.once('error', (error) => finish(error));
      req.once('close', () => finish(new Error('The client disconnected before the whole body arrived.')));
    },
    pull() {
      req.resume();
    },
    cancel() {
      // Later 'data' (Node drains an unread body after the response) is ignored, never enqueued.
      settled = true;
      req.pause();
    },
  });
  return { stream, ended: () => ended };
}

async function writeResponse(
  res: ServerResponse,
  response: Response,
  options: { head: boolean; close: boolean },
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (options.close) headers.connection = 'close';
  res.writeHead(response.status, headers);
  if (response.body === null || options.head) {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  // Headers now, so an SSE client sees the stream open before the first event.
  res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = () => {
    reader.cancel().catch(() => {});
  };
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // The body errored, or was cancelled because the client left: there is no one to tell.
  } finally {
    res.off('close', onClose);
    res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
