import type { GatewayConfig } from '../../core/config/gateway-config.js';
import { SwitchboardError } from '../../core/errors.js';
import { apiError } from '../api/api-errors.js';
import { streamLogger } from './access-log.js';
import { isLoopbackHost } from './addresses.js';
import { compose } from './compose.js';
import {
  type ConnectionInfo,
  type GatewayContext,
  type GatewayLogger,
  type Handler,
  type IncomingHandler,
  type Middleware,
  type RequestBody,
  type RequestHead,
  requestHead,
  type WebHandler,
} from './context.js';
import { HttpError, RPC_INTERNAL_ERROR } from './http-error.js';
import { authenticate, type LocalAuthOptions } from './middleware/authenticate.js';
import { authorize } from './middleware/authorize.js';
import { bodyCap, streamedBody } from './middleware/body-cap.js';
import { hostOrigin } from './middleware/host-origin.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { requestTimeout, type Schedule } from './middleware/request-timeout.js';
import { applySecurityHeaders, securityHeaders } from './middleware/security-headers.js';

export interface SecurityChainOptions {
  /** Where the listener is bound: decides whether `auth.mode: none` is allowed at all. */
  readonly bind: { readonly host: string; readonly port: number };
  /** Default: lines on standard error. */
  readonly log?: GatewayLogger;
  /** For `${VAR}` in the JWT secret; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds: rate limits, JWT times and the access log's durations. Default `Date.now`. */
  readonly now?: () => number;
  /** How the request timeout waits; default real timers. */
  readonly schedule?: Schedule;
  /**
   * Paths served to anyone who passes steps 1–5 (the dashboard's static files: they hold no
   * data, and a browser cannot send a bearer token when it opens a page). Default: none.
   */
  readonly isPublic?: (pathname: string) => boolean;
  /** With `auth.mode: none`: the local credential, which makes a caller the machine's owner. */
  readonly local?: LocalAuthOptions;
  /**
   * Whether a request was relayed here by another replica of this gateway (docs/replicas.md):
   * that replica checked its Host and Origin and counted it in its rate limits already, so
   * they are not checked or counted twice. Default: never.
   */
  readonly relayed?: (head: RequestHead) => boolean;
  /**
   * The part of each rate limit this process grants: 1/N for one of N replicas behind an even
   * (round-robin) balancer, so that together they grant the configured rate. Default 1.
   */
  readonly rateShare?: () => number;
  /** The paths served under an MCP App view's own origin (host-origin.ts). Default: none. */
  readonly sandboxPaths?: (pathname: string) => boolean;
}

/**
 * Builds the gateway's HTTP security chain around `handler` (the MCP endpoint), as one web
 * handler: `(request, { remoteAddress }) → Response`. Throws CONFIG_INVALID when the settings
 * would expose the catalog to other machines without authentication and `insecure` is not
 * set; with `insecure` it only warns. The order of the steps, and why, is in the list below.
 */
export function buildSecurityChain(
  settings: GatewayConfig,
  handler: Handler,
  options: SecurityChainOptions,
): SecurityChain {
  const log = options.log ?? streamLogger();
  const now = options.now ?? Date.now;
  const insecure = checkExposure(settings, options.bind, log);

  const steps: Middleware[] = [
    // 1. Request id and access log first, so that every answer, including every refusal
    //    below, carries an id and leaves exactly one log line.
    requestId({ now }),
    // 2. Body cap before anything reads or parses the body: no later step can be made to
    //    buffer more than limits.bodyBytes, whatever Content-Length claims.
    bodyCap({ maxBytes: settings.limits.bodyBytes }),
    // 3. Host and Origin before any step that says anything about the gateway: a page that
    //    rebound its DNS name to 127.0.0.1 learns nothing, not even whether a token is needed.
    hostOrigin({
      port: options.bind.port,
      allowedHosts: settings.allowedHosts,
      allowedOrigins: settings.allowedOrigins,
      ...(options.relayed && { exempt: options.relayed }),
      ...(options.sandboxPaths && { sandboxPaths: options.sandboxPaths }),
    }),
    // 4. Security headers on every response from here inwards (refusals made above get the
    //    same headers where errors become responses, in errorResponse below).
    securityHeaders(),
    // 5. The per-address rate limit before authentication, so guessing tokens, and making the
    //    gateway fetch an issuer's keys, is throttled like any other request.
    rateLimit({
      by: 'ip',
      ...settings.rateLimit.perIp,
      now,
      ...(options.relayed && { exempt: options.relayed }),
      ...(options.rateShare && { share: options.rateShare }),
    }),
    // 6. Authentication: who is calling (the RFC 9728 metadata document is answered here,
    //    without a token, since clients need it to get one).
    authenticate({
      auth: settings.auth,
      path: settings.path,
      insecure,
      ...(options.env && { env: options.env }),
      ...(options.local && { local: options.local }),
      now,
    }),
    // 7. The per-principal rate limit needs the principal, so it sits right after
    //    authentication: the "rate limits → authentication" holds for the address
    //    limit, and a token shared across many addresses is still held to one budget.
    rateLimit({
      by: 'principal',
      ...settings.rateLimit.perPrincipal,
      now,
      ...(options.relayed && { exempt: options.relayed }),
      ...(options.rateShare && { share: options.rateShare }),
    }),
    // 8. Authorization: a principal that may use nothing is refused before any MCP work.
    authorize(),
    // 9. The timeout last, so it measures the handler alone and aborts ctx.signal for it.
    requestTimeout({
      ms: settings.limits.requestTimeoutMs,
      now,
      ...(options.schedule && { schedule: options.schedule }),
    }),
  ];
  const isPublic = options.isPublic;
  if (isPublic) {
    // Public paths go from here straight to the handler, past authentication and what follows.
    steps.splice(FIRST_GUARDED_STEP, 0, (ctx, next) => (isPublic(ctx.head.pathname) ? handler(ctx) : next()));
  }
  const run = compose(steps, handler, (error, ctx) => errorResponse(error, ctx, settings.path));
  const context = (
    request: () => Request,
    head: RequestHead,
    signal: () => AbortSignal,
    abort: (reason: unknown) => void,
    info: ConnectionInfo,
  ): GatewayContext => new ChainContext(request, head, signal, abort, info, now(), log);
  const chain: SecurityChain = async (request, info) => {
    const own = info.abort ? { request, abort: info.abort } : abortable(request);
    const body = info.body ?? (own.request.body ? streamedBody(own.request.body) : undefined);
    const ctx = context(
      () => own.request,
      requestHead(own.request),
      () => own.request.signal,
      own.abort,
      {
        ...info,
        ...(body && { body }),
      },
    );
    return run(ctx);
  };
  chain.incoming = (incoming, info) => {
    const { abort } = info;
    if (!abort || !('signal' in info)) throw new Error('The adapter must hand over the signal it aborts.');
    return run(context(incoming.request, incoming.head, () => info.signal!, abort, info));
  };
  return chain;
}

/**
 * One request's context. A class, not an object literal with getters: per request, such a
 * literal kept the request's objects alive through young-generation collections (see
 * `AdapterInfo` in node-adapter.ts).
 */
class ChainContext implements GatewayContext {
  #made: Request | undefined;
  id = '';
  readonly remoteAddress: string;
  readonly localPort?: number;
  principal?: GatewayContext['principal'];
  extendTimeout?: (ms: number) => void;
  body?: Uint8Array;
  unreadBody?: RequestBody;

  constructor(
    private readonly makeRequest: () => Request,
    readonly head: RequestHead,
    private readonly makeSignal: () => AbortSignal,
    readonly abort: (reason: unknown) => void,
    info: ConnectionInfo,
    readonly startedAt: number,
    readonly log: GatewayLogger,
  ) {
    this.remoteAddress = info.remoteAddress;
    if (info.localPort !== undefined) this.localPort = info.localPort;
    if (info.body) this.unreadBody = info.body;
  }

  get request(): Request {
    this.#made ??= this.makeRequest();
    return this.#made;
  }

  set request(replaced: Request) {
    this.#made = replaced;
  }

  get signal(): AbortSignal {
    return this.makeSignal();
  }
}

/** The chain as `buildSecurityChain` returns it: a web handler, and the adapter's way in. */
export type SecurityChain = WebHandler & { incoming?: IncomingHandler };

/**
 * The index of authentication in the steps above: it and the steps after it guard data, so
 * public paths (which never reach a handler that reads `ctx.principal`) skip them.
 */
const FIRST_GUARDED_STEP = 5;

/**
 * A request the chain can abort, for callers that hand in one whose signal they keep to
 * themselves (in-process use): wrapped once, following the caller's signal as well.
 */
function abortable(request: Request): { request: Request; abort: (reason: unknown) => void } {
  const controller = new AbortController();
  const forward = () => controller.abort(request.signal.reason);
  if (request.signal.aborted) forward();
  else request.signal.addEventListener('abort', forward, { once: true });
  return {
    request: new Request(request, { signal: controller.signal }),
    abort: (reason) => controller.abort(reason),
  };
}

/**
 * Refuses anonymous access from other machines unless `insecure`; returns whether anonymous
 * access from other machines is allowed.
 */
function checkExposure(settings: GatewayConfig, bind: { host: string }, log: GatewayLogger): boolean {
  if (settings.auth.mode !== 'none' || isLoopbackHost(bind.host)) return false;
  if (!settings.insecure) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `The gateway would listen on ${bind.host} without authentication, so anyone who can reach it could use every tool. ` +
        'Set gateway.auth (bearer tokens or JWT), listen on 127.0.0.1, or pass --insecure if that is really meant.',
      { details: { field: 'gateway.auth.mode', host: bind.host } },
    );
  }
  log.warn(
    `The gateway listens on ${bind.host} without authentication (--insecure): anyone who can reach it can use every tool it exposes.`,
  );
  return true;
}

/** A JSON-RPC error response (JSON-RPC 2.0 §5: `id` is null when the request's is unknown). */
function rpcErrorResponse(
  status: number,
  code: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const response = Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, headers });
  return applySecurityHeaders(response);
}

/**
 * The one place where thrown errors become responses. An HttpError says its own status,
 * message and headers; a request whose client left (or that timed out and was answered
 * already) gets a bodiless 499 nobody reads; anything else is a 500 that shows the client only
 * the request id, while the log gets the error and its stack. Refusals of the dashboard's API
 * (paths under `/api`, unless that is the MCP path) have the API's error body instead of a
 * JSON-RPC one, with the same status and headers.
 */
function errorResponse(error: unknown, ctx: GatewayContext, mcpPath: string): Response {
  const { pathname } = ctx.head;
  const api = pathname !== mcpPath && (pathname === '/api' || pathname.startsWith('/api/'));
  if (error instanceof HttpError) {
    if (error.status >= 500) ctx.log.error(`request ${ctx.id}: ${error.message}`, error.cause ?? error);
    if (api) {
      const code = API_CODES[error.status] ?? `HTTP_${error.status}`;
      return applySecurityHeaders(apiError(error.status, code, error.message, undefined, error.headers));
    }
    return rpcErrorResponse(error.status, error.rpcCode, error.message, error.headers);
  }
  if (ctx.signal.aborted) return applySecurityHeaders(new Response(null, { status: 499 }));
  ctx.log.error(`request ${ctx.id} failed`, error);
  const message = `Internal error. The gateway log has the details under request id ${ctx.id}.`;
  if (api) return applySecurityHeaders(apiError(500, 'INTERNAL', message, { requestId: ctx.id }));
  return rpcErrorResponse(500, RPC_INTERNAL_ERROR, message);
}

/** The API's error codes for the chain's refusals, by status. */
const API_CODES: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  504: 'TIMEOUT',
};
