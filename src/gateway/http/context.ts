/**
 * The types every step of the gateway's HTTP chain shares: the per-request context, the
 * principal that authentication puts on it, and the handler and middleware shapes. Requests
 * and responses are the web-standard `Request` and `Response`, so the chain runs under
 * `node:http` through an adapter and in tests by calling it with `new Request(…)`.
 */

/** Server and tool globs a principal may use; `['*']` is everything, `[]` is nothing. */
export interface PrincipalGrants {
  readonly servers: readonly string[];
  /** A glob without "/" matches a tool name on any allowed server; "server/tool" names both. */
  readonly tools: readonly string[];
}

/**
 * Who is calling, as authentication established it. The MCP layer asks `allows(server, tool)`
 * before it lists or calls anything; `allows(server)` says whether any tool of that server
 * could be allowed (for listing servers and their resources).
 */
export interface Principal {
  readonly id: string;
  /** `local`: the machine's owner, proven by the local token (auth mode `none`). */
  readonly kind: 'anonymous' | 'local' | 'token' | 'jwt';
  readonly grants: PrincipalGrants;
  allows(server: string, tool?: string): boolean;
  /**
   * Whether it may add, change and remove servers (API routes and MCP management tools alike):
   * registering a server can start any command, so only a principal that may already use
   * everything.
   */
  readonly canManage: boolean;
  /**
   * What decides what it is served: kind, id, grants and `canManage`, as one text. Views are
   * cached by it, so two principals of one id with other grants (two JWTs of one subject) are
   * never served each other's.
   */
  readonly viewKey: string;
  /** The verified JWT claims (kind `jwt` only). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** One finished request, as the access log records it. Never headers or bodies. */
export interface AccessLogEntry {
  readonly at: Date;
  readonly id: string;
  readonly method: string;
  /** The URL path only: a query string could carry a token. */
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  readonly principal?: string;
  readonly remoteAddress: string;
}

/** Where the chain reports: one access line per request, warnings, and failures with details. */
export interface GatewayLogger {
  access(entry: AccessLogEntry): void;
  warn(message: string): void;
  /** A failure whose details the client was not shown (the client gets the request id). */
  error(message: string, error?: unknown): void;
}

/**
 * The state of one request as it goes down the chain. Steps may replace `request` (the body
 * cap hands on a request whose body is the bytes it read, following `signal`, when the request
 * came with a body stream of its own); the body is always `body`, so the handler passes it to
 * a web-standard MCP handler parsed, beside `ctx.request`.
 */
export interface GatewayContext {
  /**
   * The web-standard request. Made on first use when the adapter serves the request: the
   * chain's steps and the MCP fast path read `head` only, so a plain call never builds one.
   */
  request: Request;
  /** The request line and headers, read straight from the connection. */
  readonly head: RequestHead;
  /** Set by the request-id step: the caller's `X-Request-Id` when safe, else a fresh one. */
  id: string;
  readonly remoteAddress: string;
  /** The local port the connection arrived on, when the adapter knows it. */
  readonly localPort?: number;
  readonly startedAt: number;
  principal?: Principal;
  /** Aborts when the client goes away or the request times out. */
  readonly signal: AbortSignal;
  /**
   * Aborts `signal`, and with it `request.signal` (every request a step hands on follows it):
   * how the timeout stops the handler without wrapping the request in another one.
   */
  readonly abort: (reason: unknown) => void;
  /**
   * Set by the request-timeout step: gives the handler `ms` more from now, when that is later
   * than its deadline. For a request that waits for a person (an approval in the Inbox), whose
   * own deadline says how long that may take.
   */
  extendTimeout?: (ms: number) => void;
  /** The request body, read once (and capped) by the body-cap step; absent for no body. */
  body?: Uint8Array;
  /** The unread body from the adapter (see `RequestBody`), until the body cap reads it. */
  unreadBody?: RequestBody;
  readonly log: GatewayLogger;
}

/** The innermost step: turns a request into a response. */
export type Handler = (ctx: GatewayContext) => Promise<Response>;

/** One step of the chain: answers itself, or calls `next` and may change what it returns. */
export type Middleware = (ctx: GatewayContext, next: () => Promise<Response>) => Promise<Response>;

/**
 * A request body read straight from the connection, for the body cap to read once. The
 * adapter hands one over instead of a body stream on the request: no web stream per request.
 */
export interface RequestBody {
  /** The whole body, or undefined (reading stopped) as soon as more than `maxBytes` arrived. */
  read(maxBytes: number): Promise<Uint8Array | undefined>;
  /** Leaves the body unread (a refused upload). */
  discard(): void;
}

/** What the adapter knows about the connection a request came on. */
export interface ConnectionInfo {
  /** The body, when the request has one and `request.body` is null: read it from here. */
  readonly body?: RequestBody;
  readonly remoteAddress: string;
  readonly localPort?: number;
  /**
   * Aborts the request's own signal, when the caller made it from a controller it holds (the
   * adapter does). Without it the chain wraps the request once more to get a signal it can abort.
   */
  readonly abort?: (reason: unknown) => void;
  /** The signal `abort` aborts (the adapter's, with an `IncomingRequest`: there is no request to carry it yet). */
  readonly signal?: AbortSignal;
}

/** A whole chain: web request in, web response out. Never throws. */
export type WebHandler = (request: Request, info: ConnectionInfo) => Promise<Response>;

/**
 * What the chain needs to know of a request before anything reads its body: the method, the
 * path, the authority it was sent to and its headers. Building a web `Request` costs more than
 * a whole plain tool call's own work, so the adapter hands over this view and makes the
 * `Request` only when a step or handler asks for `ctx.request`.
 */
export interface RequestHead {
  readonly method: string;
  /** The URL's path, without the query. */
  readonly pathname: string;
  /** The URL's authority (the Host header when it is a plain one, else the local address). */
  readonly host: string;
  /** A header as `Headers.get` gives it: repeated fields joined with ", ", null when absent. */
  header(name: string): string | null;
}

/** The head of a web request (in-process callers and tests hand the chain whole requests). */
export function requestHead(request: Request): RequestHead {
  const url = new URL(request.url);
  return {
    method: request.method,
    pathname: url.pathname,
    host: url.host,
    header: (name) => request.headers.get(name),
  };
}

/** A request as the adapter hands it over: its head now, the web `Request` when asked for. */
export interface IncomingRequest {
  readonly head: RequestHead;
  /** Builds the request (once); its signal is the one `info.abort` aborts. */
  readonly request: () => Request;
}

/** The chain as the adapter calls it: no web `Request` unless something needs one. */
export type IncomingHandler = (incoming: IncomingRequest, info: ConnectionInfo) => Promise<Response>;
