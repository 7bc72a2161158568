import type { GatewayConfig } from '../core/config/gateway-config.js';
import type { Host } from '../host/host.js';
import { apiError } from './api/api-errors.js';
import { createApiHandler } from './api/api-handler.js';
import { watchGateway } from './gateway-gauges.js';
import { LocalCredential, type LocalToken, newLocalToken } from './http/auth/local-token.js';
import type { GatewayContext, GatewayLogger, RequestHead } from './http/context.js';
import { HEALTH_PATH, healthRoute, READY_PATH } from './http/health-routes.js';
import { localLogin } from './http/local-login.js';
import { listen } from './http/node-adapter.js';
import { buildSecurityChain } from './http/security-chain.js';
import { DEFAULT_EVENT_STORE_LIMITS } from './mcp/event-store.js';
import { fastSessionCall } from './mcp/fast-session-call.js';
import { fastToolCall } from './mcp/fast-tool-call.js';
import { createGatewayServer } from './mcp/gateway-server.js';
import { type Idempotency, IdempotencyCache } from './mcp/idempotency.js';
import { jsonRpcError } from './mcp/json-rpc-error.js';
import { McpEndpoint, type RequestSource } from './mcp/mcp-endpoint.js';
import { relayStateCodec, relayStateKey } from './mcp/relay-state.js';
import { servedTools, ViewChanges } from './mcp/served-catalog.js';
import type { ToolAnswer } from './mcp/upstream-calls.js';
import { ReplicaInbox } from './replicas/replica-inbox.js';
import { ReplicaSet, replicaUrl } from './replicas/replica-set.js';
import { SharedViews } from './replicas/replica-views.js';
import { SharedIdempotency } from './replicas/shared-idempotency.js';
import { StoreStreamArchive } from './replicas/store-stream-archive.js';
import { TaskLedger } from './tasks/task-ledger.js';
import { sandboxSigner as appSandboxSigner } from './ui/app-sandbox.js';
import { createUiHandler, isSandboxPath } from './ui/ui-handler.js';

/**
 * `switchboard serve`: the governed catalog as one MCP server over Streamable HTTP, both eras
 * on one path — and, when `legacySse` is set, the 2024-11-05 HTTP+SSE transport beside it
 * (`<path>/sse` and `<path>/messages`) — all behind the security chain (security-chain.ts).
 * Catalog changes reach every client as list-changed notifications. The same listener serves
 * the dashboard: its API under `/api`, saved media under `/media`, its pages under `/ui`.
 */
export interface HttpGateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:7777/mcp`. */
  readonly url: string;
  /** The dashboard, e.g. `http://127.0.0.1:7777/ui/`. */
  readonly dashboardUrl: string;
  /** How many sessions (2025-era and 2024-11-05 SSE) are open. */
  readonly sessions: number;
  /**
   * With `auth.mode: none`: the local token (local-token.ts) that the API's and management's
   * state changes need, and the dashboard URL that signs a browser in with it.
   */
  readonly localToken?: string;
  readonly dashboardLoginUrl?: string;
  close(): Promise<void>;
}

export async function startHttpGateway(
  host: Host,
  settings: GatewayConfig,
  options: {
    readonly log?: GatewayLogger;
    readonly env?: Readonly<Record<string, string | undefined>>;
    /**
     * Seals the state of multi-round calls (relay-state.ts). Gateways behind one load balancer
     * need the same key (`relayStateKey` of the shared secret key); default: random per process.
     */
    readonly relayStateKey?: Uint8Array;
    /** Signs the API's CSRF tokens; gateways behind one load balancer need the same key. */
    readonly csrfKey?: Uint8Array;
    /** Where the dashboard's built files are (default: dist/web of this package). */
    readonly uiDir?: string;
    /**
     * Serve every `tools/call` through the SDK (its per-request server, or the session's
     * transport), never through the fast paths (fast-tool-call.ts, fast-session-call.ts); for
     * comparing the two. Default false.
     */
    readonly fullPathOnly?: boolean;
    /**
     * With `auth.mode: none`: the local token (`ensureLocalToken` of the data dir). Default:
     * one made at random for this gateway, on `HttpGateway.localToken`.
     */
    readonly localToken?: LocalToken;
    /**
     * The process's metrics as Prometheus text (the app's `Telemetry.metricsText`): served at
     * `GET /metrics`, behind the same authentication as the API. Absent: no such route.
     */
    readonly metricsText?: () => Promise<string>;
    /**
     * Serve as one replica of many on the host's shared store (docs/replicas.md): sessions
     * opened elsewhere are relayed to their owner, or taken over when it is gone. `key` is
     * `forwardingKey` of the shared secret key; `url` is where the other replicas reach this
     * one (default: the URL it listens on).
     */
    readonly replicas?: { readonly key: Uint8Array; readonly url?: string };
  } = {},
): Promise<HttpGateway> {
  const local =
    settings.auth.mode === 'none'
      ? new LocalCredential(options.localToken ?? { value: newLocalToken() })
      : undefined;
  const relayState = relayStateCodec(options.relayStateKey ?? relayStateKey());
  const fastOptions = {
    host,
    naming: settings.names,
    exposeTools: settings.expose.tools,
    consent: settings.consent,
    limits: settings.limits,
    management: settings.management,
  };
  const replicas =
    options.replicas &&
    new ReplicaSet({
      repository: host.replicas,
      key: options.replicas.key,
      orphanedMs: settings.sessions.idleTtlMs,
      ...(options.log && { onerror: (error) => options.log!.warn(`replicas: ${error.message}`) }),
    });
  // Replicas share their idempotent calls' results through the store; one instance keeps its own.
  const idempotency: Idempotency<ToolAnswer> = replicas
    ? new SharedIdempotency<ToolAnswer>({
        repository: host.idempotency,
        owner: replicas.self,
        ttlMs: settings.idempotencyTtlMs,
        waitMs: settings.limits.requestTimeoutMs,
        ...(options.log && { onerror: (error) => options.log!.warn(`idempotency: ${error.message}`) }),
      })
    : new IdempotencyCache<ToolAnswer>(settings.idempotencyTtlMs);
  // The gateway's tasks, in the host's store: any gateway on it answers their polls (task-ledger.ts).
  const tasks = new TaskLedger({
    repository: host.tasks,
    settings: settings.tasks,
    ...(options.log && { onError: (error: Error) => options.log!.warn(`tasks: ${error.message}`) }),
  });
  // Replicas keep their sessions' stream events in the store too, for whoever takes one over.
  const archive =
    replicas &&
    new StoreStreamArchive({
      repository: host.replicaStore.streamEvents,
      eventsPerStream: DEFAULT_EVENT_STORE_LIMITS.eventsPerStream,
      ttlMs: DEFAULT_EVENT_STORE_LIMITS.ttlMs,
      maxEventBytes: DEFAULT_EVENT_STORE_LIMITS.bytesPerStream,
      onerror: (error) => options.log?.warn(`replicas: stream events: ${error.message}`),
    });
  // A round only one replica can serve names it (placed-rounds.ts): the stdio servers run per replica.
  const replica = replicas && {
    id: replicas.self,
    pins: (server: string) => host.serverConfig(server)?.transport.kind === 'stdio',
  };
  const endpoint = new McpEndpoint({
    ...(replicas && { placement: replicas, relayState }),
    ...(archive && { archive }),
    build: (principal) =>
      createGatewayServer({
        host,
        principal,
        naming: settings.names,
        expose: settings.expose,
        consent: settings.consent,
        limits: settings.limits,
        idempotency,
        relayState,
        management: settings.management,
        tasks,
        ...(replica && { replica }),
      }),
    sessions: settings.sessions,
    views: new ViewChanges(host, {
      naming: settings.names,
      expose: settings.expose,
      management: settings.management,
    }),
    toolFor: (principal, name) => {
      const served = servedTools(
        host,
        principal,
        settings.names,
        settings.expose.tools,
        settings.management,
      ).get(name);
      // Under its served name (a copy only when that differs from the upstream's).
      return served && (served.tool.name === name ? served.tool : { ...served.tool, name });
    },
    ...(!options.fullPathOnly && {
      fastToolCall: fastToolCall(fastOptions),
      fastSessionCall: fastSessionCall(fastOptions),
    }),
  });
  const onCatalog = () => endpoint.listsChanged();
  host.on('catalog', onCatalog);
  const gauges = watchGateway(host, () => endpoint.sessionCount);

  // The HTTP+SSE paths hang under the MCP path, so one allow-list entry in a proxy covers both.
  const base = settings.path.replace(/\/$/, '');
  const ssePath = `${base}/sse`;
  const messagesPath = `${base}/messages`;

  let mcpUrl = '';
  /** The port bound, for the login cookie's name where a request does not say (in-process calls). */
  let listenerPort = settings.port;
  // Issues (API) and checks (UI) the sandbox pages of MCP App views; replicas share the CSRF key.
  const sandboxSigner = appSandboxSigner(options.csrfKey);
  // The Inbox, servers and events of every replica, on every replica's dashboard and API.
  const views = replicas && sharedViews(host, replicas, options.log);
  const api = createApiHandler({
    host,
    settings,
    mcpUrl: () => mcpUrl,
    ...(options.csrfKey && { csrfKey: options.csrfKey }),
    sandboxSigner,
    ...(views && { replicas: views }),
  });
  const ui = createUiHandler({ ...(options.uiDir && { dir: options.uiDir }), sandboxSigner });
  const media = host.mediaHandler();

  const handler = async (ctx: GatewayContext): Promise<Response> => {
    const { pathname, method } = ctx.head;
    // The MCP path wins should it be configured inside one of the dashboard's.
    const area = pathname === settings.path ? undefined : dashboardArea(pathname);
    if (local && (area === 'ui' || area === 'root')) {
      const login = localLogin(ctx.request, local, ctx.localPort ?? listenerPort);
      if (login) return login;
    }
    // Without configured authentication the API and media are the machine owner's: they need
    // the local token, since a loopback address is any local user's (the MCP endpoint stays
    // open to local clients, which change no server without it).
    if (
      local &&
      (area === 'api' || area === 'media' || area === 'metrics') &&
      ctx.principal?.kind !== 'local'
    )
      return localTokenRequired(local);
    if (area === 'health') return healthRoute(pathname, method, host);
    if (area === 'api') return api.handle(ctx);
    if (area === 'metrics') return metricsRoute(method, options.metricsText);
    if (area === 'ui') return ui(ctx.request);
    if (area === 'media') return media(ctx.request);
    if (area === 'root' && (method === 'GET' || method === 'HEAD'))
      return Response.redirect(new URL('/ui/', ctx.request.url), 302);
    if (pathname === ssePath || pathname === messagesPath) {
      if (!settings.legacySse) {
        return jsonRpcError(
          404,
          -32000,
          `Not found: the HTTP+SSE transport of MCP 2024-11-05 is off. Set "gateway.legacySse": true ` +
            `to serve it, or use Streamable HTTP at ${settings.path}.`,
        );
      }
      const wanted = pathname === ssePath ? 'GET' : 'POST';
      if (method !== wanted) return notAllowed(wanted);
    } else if (pathname !== settings.path) {
      return jsonRpcError(404, -32000, `Not found; the MCP endpoint is ${settings.path}.`);
    }
    // The chain authenticated and authorized the caller before this point.
    const principal = ctx.principal!;
    if (pathname === ssePath) return endpoint.openSse(principal, messagesPath);
    let parsedBody: unknown;
    if (ctx.body && ctx.body.byteLength > 0) {
      try {
        parsedBody = JSON.parse(
          Buffer.from(ctx.body.buffer, ctx.body.byteOffset, ctx.body.byteLength).toString('utf8'),
        );
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    if (pathname === messagesPath) {
      const sessionId = new URL(ctx.request.url).searchParams.get('sessionId');
      return await endpoint.postSse(sessionId, principal, parsedBody, ctx.request);
    }
    return await endpoint.handle(new ContextSource(ctx), principal, parsedBody);
  };
  const web = buildSecurityChain(settings, handler, {
    bind: { host: settings.host, port: settings.port },
    ...(options.log && { log: options.log }),
    ...(options.env && { env: options.env }),
    // A request another replica relayed here was counted by its rate limits already.
    ...(replicas && {
      relayed: (head: RequestHead) => replicas.relayed(head),
    }),
    // Each of N replicas grants 1/N of every rate limit: together, behind an even balancer,
    // they grant what is configured.
    ...(replicas && { rateShare: () => replicas.share }),
    sandboxPaths: (pathname) => isSandboxPath(pathname),
    isPublic: (pathname) => {
      const area = dashboardArea(pathname);
      return area === 'ui' || area === 'root' || area === 'health';
    },
    ...(local && {
      local: {
        credential: local,
        acceptsCookie: (pathname: string) => {
          const area = pathname === settings.path ? undefined : dashboardArea(pathname);
          return area === 'api' || area === 'media';
        },
      },
    }),
  });
  const listener = await listen(web, { host: settings.host, port: settings.port });
  listenerPort = listener.port;
  if (replicas) {
    try {
      await replicas.start(options.replicas?.url ?? replicaUrl(listener.url));
      await views?.inbox.start();
      await views?.start();
    } catch (error) {
      views?.close();
      await views?.inbox.close();
      await replicas.close();
      await endpoint.close();
      await listener.close();
      throw error;
    }
  }
  mcpUrl = `${listener.url}${settings.path}`;
  const dashboardUrl = `${listener.url}/ui/`;
  return {
    url: mcpUrl,
    dashboardUrl,
    ...(local && {
      localToken: local.token.value,
      dashboardLoginUrl: `${dashboardUrl}?token=${local.token.value}`,
    }),
    get sessions() {
      return endpoint.sessionCount;
    },
    close: async () => {
      host.off('catalog', onCatalog);
      gauges.stop();
      api.close();
      views?.close();
      await views?.inbox.close();
      // Leaving first: from now the other replicas take this one's sessions over.
      await replicas?.close();
      await endpoint.close();
      await archive?.close();
      await listener.close();
      // After the sessions: the tasks this process still runs are failed with the reason.
      await tasks.close();
    },
  };
}

/** The Inbox, servers and events of every replica (replica-inbox.ts, replica-views.ts). */
function sharedViews(host: Host, replicas: ReplicaSet, log: GatewayLogger | undefined): SharedViews {
  const notifications = host.replicaStore.notifications;
  const onerror = (error: Error) => log?.warn(`replicas: ${error.message}`);
  const inbox = new ReplicaInbox({
    inbox: host.inbox,
    repository: host.replicaStore.inboxItems,
    notifications,
    replicas,
    onerror,
  });
  return new SharedViews(inbox, { host, replicas, notifications, onerror });
}

/**
 * The MCP endpoint's view of a request that went through the chain. Its signal is read only by
 * the calls that need it (the adapter makes it on first use). A class, not an object literal
 * with a getter: see `AdapterInfo` in node-adapter.ts for what such a literal cost.
 */
class ContextSource implements RequestSource {
  readonly head: RequestHead;
  readonly request: () => Request;

  constructor(private readonly ctx: GatewayContext) {
    this.head = ctx.head;
    this.request = () => ctx.request;
  }

  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}

/** Which part of the dashboard a path belongs to; undefined for the MCP paths and anything else. */
function dashboardArea(pathname: string): 'api' | 'ui' | 'media' | 'root' | 'metrics' | 'health' | undefined {
  if (pathname === '/') return 'root';
  if (pathname === HEALTH_PATH || pathname === READY_PATH) return 'health';
  if (pathname === METRICS_PATH) return 'metrics';
  if (pathname === '/api' || pathname.startsWith('/api/')) return 'api';
  if (pathname === '/ui' || pathname.startsWith('/ui/')) return 'ui';
  if (pathname.startsWith('/media/')) return 'media';
  return undefined;
}

/** The 401 of the API and media without the local token: where the token is, and how to send it. */
function localTokenRequired(local: LocalCredential): Response {
  const response = apiError(
    401,
    'UNAUTHORIZED',
    `This gateway runs without configured authentication, so its API is for this machine's owner: ` +
      `send the local token, which is in ${local.where}, as "Authorization: Bearer <token>", or open ` +
      'the dashboard with the link "switchboard start" printed (…/ui/?token=…).',
    { ...(local.token.file !== undefined && { tokenFile: local.token.file }) },
    { 'WWW-Authenticate': 'Bearer realm="switchboard"', 'cache-control': 'no-store' },
  );
  return response;
}

/** Where the Prometheus text is served (the path Prometheus scrapes by default). */
export const METRICS_PATH = '/metrics';

/** `GET /metrics`: the Prometheus text exposition format (0.0.4), or 404 when telemetry serves none. */
async function metricsRoute(
  method: string,
  metricsText: (() => Promise<string>) | undefined,
): Promise<Response> {
  if (!metricsText) {
    return apiError(
      404,
      'NOT_FOUND',
      'This gateway serves no metrics. Set "telemetry": { "metrics": { "prometheus": true } } in switchboard.json ' +
        '(or OTEL_METRICS_EXPORTER=prometheus) to serve them here.',
    );
  }
  if (method !== 'GET' && method !== 'HEAD') return notAllowed('GET');
  return new Response(method === 'HEAD' ? null : await metricsText(), {
    headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function notAllowed(allow: 'GET' | 'POST'): Response {
  const response = jsonRpcError(405, -32000, `Method not allowed; use ${allow}.`);
  response.headers.set('allow', allow);
  return response;
}
