import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BoundedMemo } from '../../core/bounded-memo.js';
import type { ConnectionInfo, IncomingHandler, RequestBody, RequestHead, WebHandler } from './context.js';
import { preparedBody, preparedFields } from './prepared-response.js';

/** A running listener. `close()` stops accepting and ends every connection, streams included. */
export interface NodeListener {
  /** `http://host:port`, with the port actually bound (for `port: 0`). */
  readonly url: string;
  readonly port: number;
  /** The connection timeouts the listener runs with, as `node:http` has them now (ms). */
  readonly timeouts: ConnectionTimeouts;
  close(): Promise<void>;
}

/** `node:http`'s connection timeouts, in milliseconds (0: none). */
export interface ConnectionTimeouts {
  /** How long an idle keep-alive connection is kept open after a response. */
  readonly keepAliveTimeout: number;
  /** How long a client may take to send a request's headers. */
  readonly headersTimeout: number;
  /** How long a client may take to send a whole request (headers and body; not the response). */
  readonly requestTimeout: number;
}

/**
 * The listener's connection timeouts. Node's default keep-alive timeout is 5 s, shorter than
 * what clients and proxies keep an idle connection for (load balancers 60 s, e.g. AWS ALB;
 * HTTP client pools often as long): a client that reuses a connection just as the server closes
 * it gets "other side closed" / ECONNRESET. The server must be the side that waits longer, so
 * 65 s. Node closes a connection whose next request's headers have not arrived within
 * `headersTimeout`, counted on a kept-alive connection from the end of the last response, so
 * that must be longer still, or it would cut idle connections short itself. `requestTimeout`
 * bounds receiving a request (a body is at most `limits.bodyBytes`), not answering it: an SSE
 * stream or a long call runs past it, and the gateway's own request timeout governs those; it
 * stays at Node's 300 s, which a slow client uploading the largest allowed body still meets.
 */
export const CONNECTION_TIMEOUTS: ConnectionTimeouts = {
  keepAliveTimeout: 65_000,
  headersTimeout: 66_000,
  requestTimeout: 300_000,
};

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  /** Told about failures that never reach a client (the handler threw, a write failed). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Serves a web-standard handler on `node:http`. Each request becomes a `Request` whose signal
 * aborts when the client goes away, its body handed over beside it as `info.body` and read
 * from the socket only when the chain's body cap asks (nothing is buffered here); each
 * `Response` is written as it streams, SSE frames included, waiting for `drain` when the
 * client reads slowly.
 */
export function listen(
  handler: WebHandler & { incoming?: IncomingHandler },
  options: ListenOptions,
): Promise<NodeListener> {
  const server = createServer(
    {
      headersTimeout: CONNECTION_TIMEOUTS.headersTimeout,
      requestTimeout: CONNECTION_TIMEOUTS.requestTimeout,
    },
    (req, res) => {
      serve(handler, req, res).catch((error: unknown) => {
        options.onError?.(error);
        if (!res.headersSent) res.writeHead(500, { connection: 'close' });
        res.end();
      });
    },
  );
  // Not a createServer option on Node 20.
  server.keepAliveTimeout = CONNECTION_TIMEOUTS.keepAliveTimeout;
  let closing: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve({
        url: `http://${bracketed(address.address)}:${address.port}`,
        port: address.port,
        timeouts: {
          get keepAliveTimeout() {
            return server.keepAliveTimeout;
          },
          get headersTimeout() {
            return server.headersTimeout;
          },
          get requestTimeout() {
            return server.requestTimeout;
          },
        },
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

/**
 * What the adapter tells the chain about a request: where it came from, its unread body, and
 * its signal, made when something asks for it (most answers never do, and an AbortController
 * costs more than some of them).
 *
 * A class, not an object literal with a `signal` getter. Measured on Node 20: with such a
 * literal made per request, each request's objects outlived it through young-generation
 * collections (a quarter of all allocation was promoted and freed only by full collections,
 * which then ran every few hundred ms, and the RSS rose with them); with a class instance, or
 * a literal of plain properties, they do not. The same holds for the chain's context
 * (security-chain.ts) and the endpoint's view of a request (http-gateway.ts).
 */
class AdapterInfo implements ConnectionInfo {
  readonly remoteAddress: string;
  readonly localPort?: number;
  readonly body?: RequestBody & { ended: () => boolean };
  #controller: AbortController | undefined;

  constructor(private readonly res: ServerResponse) {
    const { req } = res;
    this.remoteAddress = req.socket.remoteAddress ?? '';
    const { localPort } = req.socket;
    if (localPort !== undefined) this.localPort = localPort;
    if (hasBody(req)) this.body = bodyReader(req);
  }

  get signal(): AbortSignal {
    return this.#control().signal;
  }

  /** Bound: the chain takes it from here as a plain function. */
  readonly abort = (reason: unknown): void => this.#control().abort(reason);

  /**
   * The controller, made on first use, from then on aborted when the client goes away before
   * the response is written (a client gone already: at once). Until then nobody holds the
   * signal, so nobody needs telling.
   */
  #control(): AbortController {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const { res } = this;
      const gone = () => {
        if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
      };
      if (res.closed) gone();
      else res.on('close', gone);
    }
    return this.#controller;
  }
}

async function serve(
  handler: WebHandler & { incoming?: IncomingHandler },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const info = new AdapterInfo(res);
  const { body } = info;
  let response: Response;
  if (handler.incoming) {
    const url = requestUrl(req);
    if (url === undefined) return badRequest(res);
    // The body is not on the request: the chain's body cap reads it from `info.body`.
    const made = () =>
      new Request(url.href, {
        method: req.method ?? 'GET',
        headers: requestHeaders(req),
        signal: info.signal,
      });
    // Node parsed it, but fetch refuses these methods: answered as the web path answers them.
    if (FORBIDDEN_METHOD.test(req.method ?? '')) return badRequest(res);
    response = await handler.incoming({ head: headOf(req, url), request: once(made) }, info);
  } else {
    let request: Request;
    try {
      const url = requestUrl(req);
      if (url === undefined) return badRequest(res);
      request = new Request(url.href, {
        method: req.method ?? 'GET',
        headers: requestHeaders(req),
        signal: info.signal,
      });
    } catch {
      return badRequest(res);
    }
    response = await handler(request, info);
  }
  await writeResponse(res, response, {
    head: req.method === 'HEAD',
    // A body left unread (a refused upload) is not drained: closing the connection is cheaper,
    // and the next request could not be parsed from the middle of this one anyway.
    close: body !== undefined && !body.ended(),
  });
}

/** Methods a fetch `Request` refuses (Fetch standard, "forbidden method"). */
const FORBIDDEN_METHOD = /^(CONNECT|TRACE|TRACK)$/i;

/** Node parsed it, but it is no valid fetch request (a TRACE, a Host that is no authority). */
function badRequest(res: ServerResponse): void {
  res.writeHead(400, { connection: 'close', 'content-type': 'text/plain' }).end('Bad request\n');
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** The request's head, read from Node's parse (headers as a web `Headers` would give them). */
function headOf(req: IncomingMessage, url: { pathname: string; host: string }): RequestHead {
  return {
    method: req.method ?? 'GET',
    pathname: url.pathname,
    host: url.host,
    header: (name) => rawHeader(req.rawHeaders, name),
  };
}

/**
 * A header as `Headers.get` gives it: found in any case, its values joined with ", ". Read
 * from Node's raw list, which costs nothing to keep (`headersDistinct` builds an array for
 * every header of every request, for the few a request's chain asks about).
 */
function rawHeader(raw: readonly string[], name: string): string | null {
  const wanted = name.toLowerCase();
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== wanted.length || key.toLowerCase() !== wanted) continue;
    found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]!}`;
  }
  return found;
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
function requestUrl(req: IncomingMessage): RequestTarget | undefined {
  const path = req.url?.startsWith('/') ? req.url : '/';
  const host = req.headers.host;
  const authority =
    host !== undefined && PLAIN_AUTHORITY.test(host)
      ? host
      : `${bracketed(req.socket.localAddress ?? '127.0.0.1')}:${req.socket.localPort ?? 0}`;
  const text = `http://${authority}${path}`;
  const known = targets.get(text);
  if (known !== undefined) return known;
  try {
    const { href, pathname, host: parsedHost } = new URL(text);
    return targets.remember(text, { href, pathname, host: parsedHost });
  } catch {
    return undefined;
  }
}

/** What the adapter reads of a request's URL. */
interface RequestTarget {
  readonly href: string;
  readonly pathname: string;
  readonly host: string;
}

const PLAIN_AUTHORITY = /^[A-Za-z0-9.\-[\]:]+$/;

/**
 * Request URLs parsed already, by their text: clients send the same few (`/mcp` on one host)
 * thousands of times a second, and parsing one costs more than the rest of the request head.
 */
const targets = new BoundedMemo<RequestTarget>(256);

function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return headers;
}

/**
 * The request body, read from the socket only when the chain asks for it: chunks are gathered
 * until the end, or until more than the cap arrived, when reading stops and the socket pauses.
 */
function bodyReader(req: IncomingMessage): RequestBody & { ended: () => boolean } {
  let ended = false;
  let used = false;
  return {
    ended: () => ended,
    discard: () => {
      used = true;
      req.pause();
    },
    read: (maxBytes) => {
      if (used) return Promise.reject(new Error('The request body was read already.'));
      used = true;
      return new Promise<Uint8Array | undefined>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onError);
          req.off('close', onClose);
        };
        const onData = (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > maxBytes) {
            // Later data (Node drains an unread body after the response) is never kept.
            finish();
            req.pause();
            resolve(undefined);
            return;
          }
          chunks.push(chunk);
        };
        const onEnd = () => {
          ended = true;
          finish();
          resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
        };
        const onError = (error: Error) => {
          finish();
          reject(error);
        };
        const onClose = () => {
          finish();
          reject(new Error('The client disconnected before the whole body arrived.'));
        };
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('error', onError);
        req.once('close', onClose);
      });
    },
  };
}

async function writeResponse(
  res: ServerResponse,
  response: Response,
  options: { head: boolean; close: boolean },
): Promise<void> {
  const fields = preparedFields(response);
  const headers: OutgoingHttpHeaders = fields ?? {};
  if (fields === undefined) {
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers['set-cookie'] = cookies;
  }
  if (options.close) headers.connection = 'close';
  const whole = options.head || response.bodyUsed ? undefined : preparedBody(response);
  if (whole !== undefined) {
    // Head and body in one write, with its length rather than chunked (no framing to add);
    // the unread body stream is dropped with the response.
    headers['content-length'] = Buffer.byteLength(whole);
    res.writeHead(response.status, headers);
    res.end(whole);
    return;
  }
  res.writeHead(response.status, headers);
  if (response.body === null || options.head) {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => {
    reader.cancel().catch(() => {});
  };
  res.on('close', onClose);
  // Whatever the body has ready goes out with the head in one socket write (a JSON answer, an
  // SSE stream's first events and its end); the socket is flushed whenever the body makes us
  // wait, so an SSE client still sees the stream open, and each event, as soon as it exists.
  res.cork();
  let corked = true;
  let wrote = false;
  try {
    for (;;) {
      const next = reader.read();
      if (corked && !(await isSettled(next))) {
        corked = false;
        // writeHead only stored the head: it goes out with the first write, or here.
        if (!wrote) res.flushHeaders();
        res.uncork();
      }
      const { done, value } = await next;
      if (done || res.destroyed) break;
      if (!corked) {
        res.cork();
        corked = true;
      }
      wrote = true;
      if (!res.write(value)) {
        corked = false;
        res.uncork();
        await drained(res);
      }
    }
  } catch {
    // The body errored, or was cancelled because the client left: there is no one to tell.
  } finally {
    res.off('close', onClose);
    // end() flushes what is still corked.
    res.end();
  }
}

const PENDING = Symbol('pending');

/**
 * Whether `promise` settles within a few microtask turns, that is without waiting for I/O or
 * a timer: a body stream that has its next chunk (or its end) queued answers that soon.
 */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let later: Promise<typeof PENDING> = Promise.resolve(PENDING);
  for (let i = 0; i < MICROTASK_HOPS; i++) later = later.then((v) => v);
  const first = await Promise.race([promise.then(() => undefined), later]).catch(() => undefined);
  return first !== PENDING;
}

/** How many microtask turns a ready body may take to hand over its next chunk or its end. */
const MICROTASK_HOPS = 4;

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
