import type { z } from 'zod';
import type { GatewayConfig } from '../../core/config/gateway-config.js';
import type { Host } from '../../host/host.js';
import type { GatewayContext, Principal } from '../http/context.js';
import type { Csrf } from './csrf.js';
import type { InboxDesk } from './inbox-desk.js';
import type { LiveFeed } from './live-feed.js';
import type { ReplicaViews } from './replica-views.js';
import type { HttpMethod, Routable } from './router.js';
import type { SseStream } from './sse.js';

/**
 * What an API route is: the router's method and path, what the OpenAPI document says of it,
 * the schemas its query and body are checked with, and its handler. Route modules build
 * their routes from the shared `ApiDeps`; the handler (api-handler.ts) does everything the
 * routes have in common — routing, CSRF, the management check, parsing, errors.
 */

/** What route modules share. */
export interface ApiDeps {
  readonly host: Host;
  readonly settings: GatewayConfig;
  readonly mcpUrl: () => string;
  readonly csrf: Csrf;
  /** Host and Inbox changes, for the event streams. */
  readonly feed: LiveFeed;
  /** The Inbox as the API shows it: the host's, or with replicas every replica's. */
  readonly inbox: InboxDesk;
  /** The other replicas of this gateway (docs/replicas.md); absent on a single gateway. */
  readonly replicas?: ReplicaViews;
  /** Registers an open event stream, so `close()` of the handler can end it. */
  readonly track: (stream: SseStream) => void;
}

/** The caller, as every route sees it. */
export interface Caller {
  readonly principal: Principal;
  /** Whether the caller may add, change and remove servers (see `canManage`). */
  readonly canManage: boolean;
  /** The host session the caller's tool calls run in (`dashboard:<principal>`): audit's actor. */
  readonly session: string;
}

/** One request, parsed, as a route's handler gets it. */
export interface RouteInput<Q, B> {
  readonly ctx: GatewayContext;
  readonly caller: Caller;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  readonly body: B;
}

/** A documented response of a route. */
export interface RouteResponse {
  readonly description: string;
  /** A registered response schema (api-schemas.ts); absent for a response without a body. */
  readonly schema?: z.ZodType;
  /** The response is an SSE stream; `description` says which events it carries. */
  readonly sse?: boolean;
}

/** One route of the API: see the module comment. */
export interface ApiRoute extends Routable {
  readonly method: HttpMethod;
  readonly path: string;
  /** The OpenAPI tag: the area of the dashboard it serves. */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** What each `{param}` of the path is. */
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: z.ZodObject;
  /** A registered request schema (api-schemas.ts). */
  readonly body?: z.ZodType;
  /** Only for callers that may manage servers. */
  readonly manage?: boolean;
  /** The success responses by status (errors are described once for every route). */
  readonly responses: Readonly<Record<number, RouteResponse>>;
  handle(input: RouteInput<unknown, unknown>): Promise<Response>;
}

/**
 * An `ApiRoute` whose handler sees its query and body typed by their schemas (the handler
 * parses them with those very schemas before it calls `handle`).
 */
export function defineRoute<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  route: Omit<ApiRoute, 'handle' | 'query' | 'body'> & {
    readonly query?: Q;
    readonly body?: B;
    handle(
      input: RouteInput<
        Q extends z.ZodType ? z.output<Q> : undefined,
        B extends z.ZodType ? z.output<B> : undefined
      >,
    ): Promise<Response>;
  },
): ApiRoute {
  return route as ApiRoute;
}

/** A JSON response (200 unless told). */
export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}
