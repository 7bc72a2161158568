import { z } from 'zod';
import type { GatewayConfig } from '../../core/config/gateway-config.js';
import type { Host } from '../../host/host.js';
import type { GatewayContext, GatewayLogger } from '../http/context.js';
import { type SandboxSigner, sandboxSigner } from '../ui/app-sandbox.js';
import { ApiProblem, problemResponse } from './api-errors.js';
import { LastAppResults } from './app-results.js';
import { CSRF_HEADER, createCsrf } from './csrf.js';
import { localInboxDesk } from './inbox-desk.js';
import { LiveFeed } from './live-feed.js';
import type { ReplicaViews } from './replica-views.js';
import { parseBody, parseQuery } from './request-input.js';
import type { ApiDeps, ApiRoute, Caller } from './route.js';
import { type Routable, Router } from './router.js';
import { appRoutes } from './routes/app-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { inboxRoutes } from './routes/inbox-routes.js';
import { logRoutes } from './routes/log-routes.js';
import { metricsRoutes } from './routes/metrics-routes.js';
import { recordRoutes } from './routes/record-routes.js';
import { serverRoutes } from './routes/server-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { streamRoutes } from './routes/stream-routes.js';
import { toolRoutes } from './routes/tool-routes.js';
import type { SseStream } from './sse.js';

/**
 * The dashboard's HTTP API under `/api` (routes and shapes: api-types.ts). Runs inside the
 * gateway's security chain, so `ctx.principal` is set and the body is read and capped. What
 * every route has in common happens here, in this order: routing (404, 405 with `Allow`),
 * the CSRF check of state-changing requests, the management check, parsing the query and the
 * body with the route's schemas (400: a field a route does not take is refused, never ignored),
 * the route, and turning what it threw into an ApiError.
 */
export interface ApiHandler {
  handle(ctx: GatewayContext): Promise<Response>;
  /** Every route it serves, as the router knows them. */
  readonly routes: readonly Routable[];
  /** Ends every open event stream. */
  close(): void;
}

export interface ApiHandlerOptions {
  readonly host: Host;
  readonly settings: GatewayConfig;
  /** The MCP endpoint's URL, known once the listener is bound. */
  readonly mcpUrl: () => string;
  /** Signs CSRF tokens (`csrfKey` of the shared secret key); default: random per process. */
  readonly csrfKey?: Uint8Array;
  /** Signs the sandbox pages of MCP App views (ui/app-sandbox.ts); default: random per process. */
  readonly sandboxSigner?: SandboxSigner;
  /** The other replicas of this gateway (docs/replicas.md): their Inbox items, servers and events. */
  readonly replicas?: ReplicaViews;
}

/** What a route without query parameters accepts: none. */
const NO_QUERY = z.strictObject({});
/** What a route without a body accepts: none, or `{}` (a field sent to it would do nothing: 400). */
const NO_BODY = z.strictObject({});

export function createApiHandler(options: ApiHandlerOptions): ApiHandler {
  const { host } = options;
  // The feed outlives requests; its failures go to the gateway's log, known from the first request.
  let log: GatewayLogger | undefined;
  const { replicas } = options;
  const inbox = replicas?.inbox ?? localInboxDesk(host.inbox);
  const feed = new LiveFeed(
    host,
    (error) => log?.error('The API could not relay a change to its streams', error),
    { inbox, ...(replicas && { replicas }) },
  );
  const streams = new Set<SseStream>();
  const deps: ApiDeps = {
    host,
    settings: options.settings,
    mcpUrl: options.mcpUrl,
    csrf: createCsrf({ ...(options.csrfKey && { key: options.csrfKey }) }),
    feed,
    inbox,
    ...(replicas && { replicas }),
    track: (stream) => {
      streams.add(stream);
      stream.onClose(() => streams.delete(stream));
    },
  };
  const routes: ApiRoute[] = [];
  const lastResults = new LastAppResults();
  routes.push(
    ...sessionRoutes(deps, () => routes),
    ...serverRoutes(deps),
    ...toolRoutes(deps, lastResults),
    ...appRoutes(deps, lastResults, options.sandboxSigner ?? sandboxSigner()),
    ...catalogRoutes(deps),
    ...inboxRoutes(deps),
    ...recordRoutes(deps),
    ...logRoutes(deps),
    ...metricsRoutes(deps),
    ...streamRoutes(deps),
  );
  const router = new Router(routes);

  const dispatch = async (ctx: GatewayContext): Promise<Response> => {
    const url = new URL(ctx.request.url);
    const { method } = ctx.request;
    const found = router.match(method, url.pathname);
    if (found.kind === 'not_found') {
      throw new ApiProblem(
        404,
        'NOT_FOUND',
        `No API route ${method} ${url.pathname}. GET /api/openapi.json describes every route.`,
      );
    }
    if (found.kind === 'method_not_allowed') {
      throw new ApiProblem(
        405,
        'METHOD_NOT_ALLOWED',
        `${url.pathname} does not take ${method}; use ${found.allow.join(' or ')}.`,
        { headers: { Allow: found.allow.join(', ') } },
      );
    }
    if (found.kind === 'bad_path') {
      throw new ApiProblem(
        400,
        'INVALID_REQUEST',
        `The path segment "${found.segment}" is not valid percent-encoding.`,
      );
    }
    const { route, params } = found;
    // The security chain authenticated the caller before this point.
    const principal = ctx.principal;
    if (!principal) throw new Error('The API runs behind authentication; ctx.principal is missing.');
    if (!deps.csrf.allows(ctx.request, principal.id)) {
      throw new ApiProblem(
        403,
        'CSRF_REQUIRED',
        `${method} needs the header ${CSRF_HEADER} with the csrfToken of GET /api/session. ` +
          'Fetch /api/session and send its token in that header.',
      );
    }
    const caller: Caller = {
      principal,
      canManage: principal.canManage,
      // The session is the audit log's actor, so every call names who made it.
      session: `dashboard:${principal.id}`,
    };
    if (route.manage && !caller.canManage) {
      throw new ApiProblem(
        403,
        'FORBIDDEN',
        `"${principal.id}" may not manage servers: that needs grants of every server and tool ` +
          '(servers ["*"] and tools ["*"]), or the dashboard opened on this machine without authentication.',
        { details: { principal: principal.id } },
      );
    }
    const query = parseQuery(url.searchParams, route.query ?? NO_QUERY);
    const body = parseBody(ctx.body, route.body ?? NO_BODY);
    return route.handle({ ctx, caller, params, query, body });
  };

  return {
    routes: router.routes.map(({ method, path }) => ({ method, path })),
    handle: async (ctx) => {
      log = ctx.log;
      try {
        return await dispatch(ctx);
      } catch (error) {
        return problemResponse(error, ctx);
      }
    },
    close: () => {
      for (const stream of [...streams]) stream.close();
      feed.close();
    },
  };
}
