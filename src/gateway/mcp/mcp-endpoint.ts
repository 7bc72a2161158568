import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
  type RequestStateCodec,
  type Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { ControllerPool } from '../../core/controller-pool.js';
import { type RequestHead, requestHead } from '../http/context.js';
import { type EventStoreLimits, GatewayEventStore, type SessionEventStore } from './event-store.js';
import {
  type FastSessionCall,
  offersCallbacks,
  type PlainSessionCall,
  plainSessionCall,
} from './fast-session-call.js';
import { type FastToolCall, plainToolCall } from './fast-tool-call.js';
import { sessionLogLevel } from './gateway-server.js';
import { jsonRpcError } from './json-rpc-error.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { isListenRequest, ListenHandlers } from './listen-handlers.js';
import { paramHeaderRefusal } from './param-headers.js';
import { serveRoundElsewhere } from './placed-rounds.js';
import { replayInitialize, servePlaced, storedInitialize } from './placed-sessions.js';
import type { RelayState } from './relay-state.js';
import { everyListChanged, type GatewayPrincipal, type ViewChanges } from './served-catalog.js';
import { servedWithSpan } from './served-span.js';
import type { SessionPlacement } from './session-placement.js';
import { asNegotiated, noticeCancellations } from './session-requests.js';
import { type SettledCall, withSettledCall } from './settled-call.js';
import { type StreamArchive, withStreamRequests } from './stream-archive.js';

/**
 * The `/mcp` endpoint for every era. 2026-07-28 requests are stateless: the SDK's
 * `createMcpHandler` builds one server instance per request for its principal. 2025-era
 * traffic gets real sessions (MCP 2025-11-25 "Session Management": `Mcp-Session-Id`, a GET
 * stream for server→client messages, DELETE), which `createMcpHandler` does not offer — hence
 * the session table here, routed with the SDK's own classifier — and their streams are
 * resumable ("Resumability and Redelivery"): every event is kept in the event store, POST
 * streams open with a priming event carrying `retry`, and `GET` + `Last-Event-ID` replays what
 * a client missed. 2024-11-05 HTTP+SSE sessions (`openSse`/`postSse`) live in the same table.
 * A session belongs to the principal that opened it; idle sessions are closed after a TTL,
 * and at the cap the least recently used one makes room, so a flood of `initialize` (or of
 * SSE streams) cannot exhaust memory.
 */
export interface McpEndpointOptions {
  /** A server instance for `principal` (one per session, or per modern request). */
  readonly build: (principal: GatewayPrincipal) => Server;
  readonly sessions: { readonly idleTtlMs: number; readonly max: number };
  /** Bounds of the event store behind resumable streams (event-store.ts has the defaults). */
  readonly events?: Partial<EventStoreLimits>;
  /** The `retry` (ms) a priming event tells clients to wait before they resume. Default 1 s. */
  readonly retryMs?: number;
  /** Milliseconds between keep-alive comments on 2024-11-05 SSE streams. Default 15 s. */
  readonly keepAliveMs?: number;
  readonly onerror?: (error: Error) => void;
  readonly now?: () => number;
  /** The served tool of a `tools/call` by name, for the SEP-2243 `Mcp-Param-*` header check. */
  readonly toolFor?: (principal: GatewayPrincipal, name: string) => Tool | undefined;
  /** Answers the plain 2026-07-28 `tools/call` without a server instance (fast-tool-call.ts). */
  readonly fastToolCall?: FastToolCall;
  /** Answers a 2025 session's plain `tools/call` without the SDK's transport (fast-session-call.ts). */
  readonly fastSessionCall?: FastSessionCall;
  /**
   * Whose lists a catalog change changed (served-catalog.ts): a list-changed notification
   * goes only to a caller whose own view of that list changed. Absent: to every caller.
   */
  readonly views?: ViewChanges;
  /**
   * Replicas sharing the sessions (session-placement.ts): a session this endpoint does not
   * hold is relayed to its owner, or re-created here when the owner is gone. Absent: sessions
   * live here alone.
   */
  readonly placement?: SessionPlacement;
  /**
   * Where stream events are kept for the other replicas (stream-archive.ts): a replica that
   * takes a session over resumes its streams from there. Absent: in this process's memory only.
   */
  readonly archive?: StreamArchive;
  /**
   * The codec of multi-round states (relay-state.ts), with `placement`: a round only another
   * replica can serve is relayed there (placed-rounds.ts).
   */
  readonly relayState?: RequestStateCodec<RelayState>;
}

type Session = {
  readonly server: Server;
  /** The id of the principal it belongs to. */
  readonly principal: string;
  /** That principal as it opened the session: whose view the session's lists are. */
  readonly viewer: GatewayPrincipal;
  lastSeen: number;
} & (StreamableSession | { readonly kind: 'sse'; readonly transport: LegacySseTransport });

interface StreamableSession {
  readonly kind: 'streamable';
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The session's view of the event store, as its transport has it. */
  readonly events: SessionEventStore;
  /** Calls the fast path runs, by JSON-RPC id: what the client's cancellation or the session's end aborts. */
  readonly fastCalls: Map<string | number, AbortController>;
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly events: GatewayEventStore;
  private readonly modern: McpHttpHandler;
  private readonly reaper: NodeJS.Timeout;
  private readonly now: () => number;
  /** The fast path's per-call controllers (see `fastSession`). */
  private readonly controllers = new ControllerPool();
  /** `subscriptions/listen` streams, one handler per view (listen-handlers.ts). */
  private readonly listens: ListenHandlers;
  /** Sessions being re-created here (see `restore`), so concurrent requests make one. */
  private readonly restoring = new Map<string, Promise<Session | undefined>>();
  /** Set by `close`: sessions closing with the endpoint stay recorded for the other replicas. */
  private closing = false;

  constructor(private readonly options: McpEndpointOptions) {
    this.now = options.now ?? Date.now;
    this.events = new GatewayEventStore({
      ...(options.events && { limits: options.events }),
      now: this.now,
      ...(options.archive && { archive: options.archive }),
    });
    this.modern = this.modernHandler();
    this.listens = new ListenHandlers(() => this.modernHandler());
    const every = Math.max(1_000, Math.min(60_000, Math.floor(options.sessions.idleTtlMs / 2)));
    this.reaper = setInterval(() => void this.reap(), every);
    this.reaper.unref();
  }

  /** How many sessions (2025-era and 2024-11-05 SSE) are open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serves one request of `principal` (already authenticated by the security chain): a web
   * request, or the chain's view of one, whose `Request` is built only if the fast path
   * declines the call.
   */
  async handle(
    source: Request | RequestSource,
    principal: GatewayPrincipal,
    parsedBody?: unknown,
  ): Promise<Response> {
    const own = source instanceof Request ? sourceOf(source) : source;
    // One server span per MCP request (served-span.ts): what the upstream request is a child of.
    return servedWithSpan({ head: own.head, body: parsedBody, principal: principal.id }, () =>
      this.serve(own, principal, parsedBody),
    );
  }

  private async serve(
    own: RequestSource,
    principal: GatewayPrincipal,
    parsedBody: unknown,
  ): Promise<Response> {
    // `own.signal` is read only where a call needs it (the adapter makes it on first use).
    const { head, request } = own;
    const fast = this.options.fastToolCall;
    const call = fast ? plainToolCall(head, parsedBody) : undefined;
    // A plain call is a 2026-07-28 request by the SDK's own classifier, and a plain session call
    // (no envelope, the session's 2025 version in the header) a legacy one: no need to ask.
    const sessionCall = call ? undefined : this.plainSessionCallOf(head, parsedBody);
    if (!call && (sessionCall || (await isLegacyRequest(request(), parsedBody))))
      return await this.legacy(own, principal, parsedBody, sessionCall);
    const mismatch =
      this.options.toolFor &&
      paramHeaderRefusal((name) => this.options.toolFor!(principal, name), head, parsedBody);
    if (mismatch) return mismatch;
    const { placement, relayState } = this.options;
    if (placement && relayState && !call) {
      const elsewhere = await serveRoundElsewhere({
        placement,
        codec: relayState,
        principal,
        body: parsedBody,
        request,
        signal: own.signal,
        relayed: placement.relayed(head),
      });
      if (elsewhere) return elsewhere;
    }
    // A listen stream is served by the handler of its caller's view, whose notifications are
    // that view's alone; every other request by the one shared handler.
    const modern = isListenRequest(parsedBody) ? this.listens.handlerFor(principal) : this.modern;
    const fullPath = (settled?: SettledCall) =>
      modern.fetch(request(), {
        authInfo: {
          token: '',
          clientId: principal.id,
          scopes: [],
          extra: withSettledCall({ principal }, settled),
        },
        ...(parsedBody !== undefined && { parsedBody }),
      });
    if (fast && call) {
      const answer = await fast({ call, signal: own.signal, principal, fullPath });
      if (answer) return answer;
    }
    return fullPath();
  }

  /**
   * Opens a 2024-11-05 HTTP+SSE session for `principal`: the answer to its `GET` is the event
   * stream, whose `endpoint` event names `postPath?sessionId=…` for the client's messages.
   */
  async openSse(principal: GatewayPrincipal, postPath: string): Promise<Response> {
    await this.makeRoom();
    const id = randomUUID();
    const transport = new LegacySseTransport({
      sessionId: id,
      postUrl: `${postPath}?sessionId=${id}`,
      principal: principal.id,
      ...(this.options.keepAliveMs !== undefined && { keepAliveMs: this.options.keepAliveMs }),
    });
    const session: Session = {
      kind: 'sse',
      server: this.server(principal),
      transport,
      principal: principal.id,
      viewer: principal,
      lastSeen: this.now(),
    };
    // Set before connect, which chains it: the stream ending, for any reason, ends the session.
    transport.onclose = () => this.forget(id, session);
    await session.server.connect(transport);
    this.sessions.set(id, session);
    await this.recordOpened(id, principal, 'sse', {});
    return transport.open();
  }

  /** One message POSTed to a 2024-11-05 session; `sessionId` comes from the URL the stream announced. */
  async postSse(
    sessionId: string | null,
    principal: GatewayPrincipal,
    parsedBody: unknown,
    request: Request,
  ): Promise<Response> {
    const session = sessionId === null ? undefined : this.sessions.get(sessionId);
    const placement = this.options.placement;
    if (session === undefined && sessionId !== null && placement) {
      // Its stream is held by the replica that opened it: the message must go there.
      const source = sourceOf(request);
      const placed = await servePlaced({
        placement,
        id: sessionId,
        kind: 'sse',
        source,
        principal,
        body: parsedBody,
      });
      if ('answer' in placed) return placed.answer;
    }
    // Another principal's session id is answered like an unknown one: nothing to learn from it.
    if (session?.kind !== 'sse' || session.principal !== principal.id) {
      return jsonRpcError(404, -32001, 'Session not found; open a new SSE stream.');
    }
    session.lastSeen = this.now();
    return session.transport.receive(parsedBody, request);
  }

  /**
   * Tells each client whose lists the catalog change changed (sessions get notifications;
   * modern clients through `subscriptions/listen`): with `views`, a client hears of a list
   * only when its own view of it changed.
   */
  listsChanged(): void {
    const changed = this.options.views?.next() ?? everyListChanged;
    for (const session of this.sessions.values()) {
      // A session still waiting for its `initialize` has no lists to have changed yet.
      if (session.server.getNegotiatedProtocolVersion() === undefined) continue;
      const lists = changed(session.viewer);
      // A kind the session's server does not offer rejects its notification: nothing to tell.
      if (lists.tools) void session.server.sendToolListChanged().catch(() => undefined);
      if (lists.prompts) void session.server.sendPromptListChanged().catch(() => undefined);
      if (lists.resources) void session.server.sendResourceListChanged().catch(() => undefined);
    }
    this.listens.changed(changed);
  }

  /** Closes every session and in-flight modern exchange. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.reaper);
    const all = [...this.sessions];
    this.sessions.clear();
    await Promise.all(all.map(([id, s]) => this.closeSession(id, s)));
    await this.modern.close();
    await this.listens.close();
  }

  /** A handler of the modern era serving `build`'s servers, for the principal each request carries. */
  private modernHandler(): McpHttpHandler {
    return createMcpHandler(
      (ctx) =>
        this.options.build((ctx.authInfo?.extra?.principal as GatewayPrincipal | undefined) ?? ANONYMOUS),
      { legacy: 'reject', ...(this.options.onerror && { onerror: this.options.onerror }) },
    );
  }

  /** Closes sessions idle past the TTL and drops expired stored events; returns how many sessions. */
  async reap(): Promise<number> {
    this.events.prune();
    const cutoff = this.now() - this.options.sessions.idleTtlMs;
    const idle = [...this.sessions].filter(([, s]) => s.lastSeen < cutoff);
    await Promise.all(idle.map(([id, s]) => this.closeSession(id, s)));
    return idle.length;
  }

  private async legacy(
    source: RequestSource,
    principal: GatewayPrincipal,
    parsedBody: unknown,
    plain: PlainSessionCall | undefined,
  ): Promise<Response> {
    const sessionId = source.head.header('mcp-session-id');
    if (sessionId !== null) {
      let session = this.sessions.get(sessionId);
      const placement = this.options.placement;
      if (session === undefined && placement) {
        const placed = await servePlaced({
          placement,
          id: sessionId,
          kind: 'streamable',
          source,
          principal,
          body: parsedBody,
        });
        if ('answer' in placed) return placed.answer;
        session = await this.restore(sessionId, principal, placed.restore);
      }
      // Another principal's session id is answered like an unknown one: nothing to learn from it.
      if (session?.kind !== 'streamable' || session.principal !== principal.id) {
        return jsonRpcError(404, -32001, 'Session not found; initialize a new one.');
      }
      session.lastSeen = this.now();
      noticeCancellations(session, parsedBody);
      const sdk = (settled?: SettledCall) =>
        session.transport.handleRequest(asNegotiated(source.request(), session.server), {
          parsedBody,
          ...(settled && {
            authInfo: {
              token: '',
              clientId: principal.id,
              scopes: [],
              extra: withSettledCall({ principal }, settled),
            },
          }),
        });
      const serve = async () => {
        if (plain && !offersCallbacks(session.server.getClientCapabilities())) {
          const answer = await this.fastSession(sessionId, session, principal, plain, sdk);
          if (answer) return answer;
        }
        return sdk();
      };
      // With an archive, the requests a POST stream answers are noted on it (stream-archive.ts).
      return this.options.archive ? withStreamRequests(parsedBody, serve) : serve();
    }
    const request = source.request();
    if (request.method === 'POST' && isInitializeRequest(parsedBody))
      return this.open(request, principal, parsedBody);
    return jsonRpcError(400, -32000, 'Bad Request: no valid session id; send initialize first.');
  }

  /** A 2025 session's plain `tools/call` (fast-session-call.ts), when the fast path is on. */
  private plainSessionCallOf(head: RequestHead, body: unknown): PlainSessionCall | undefined {
    if (!this.options.fastSessionCall) return undefined;
    const sessionId = head.header('mcp-session-id');
    const session = sessionId === null ? undefined : this.sessions.get(sessionId);
    if (session?.kind !== 'streamable') return undefined;
    const version = session.server.getNegotiatedProtocolVersion();
    // Sessions are 2025-era: a modern version here would be the SDK's to judge.
    if (version === undefined || !version.startsWith('202') || version >= '2026') return undefined;
    return plainSessionCall(head, body, version);
  }

  /** Runs a session call through the fast path, cancellable by the client and by the session's end. */
  private async fastSession(
    sessionId: string,
    session: StreamableSession & { readonly server: Server },
    principal: GatewayPrincipal,
    call: PlainSessionCall,
    sdk: (settled?: SettledCall) => Promise<Response>,
  ): Promise<Response | undefined> {
    // A controller per call, reused once the call is over: what listens to its signal (the
    // connection's request, an approval wait) stops listening when the call ends.
    const controller = this.controllers.take();
    session.fastCalls.set(call.id, controller);
    let over = false;
    const finished = () => {
      if (over) return;
      over = true;
      if (session.fastCalls.get(call.id) === controller) session.fastCalls.delete(call.id);
      this.controllers.release(controller);
    };
    try {
      return await this.options.fastSessionCall!(call, {
        sessionId,
        principal,
        events: session.events,
        retryMs: this.options.retryMs ?? 1_000,
        protocolVersion: session.server.getNegotiatedProtocolVersion()!,
        logLevel: sessionLogLevel(session.server),
        signal: controller.signal,
        fullPath: sdk,
        finished,
        ...(this.options.onerror && { onerror: this.options.onerror }),
      });
    } catch (error) {
      finished();
      throw error;
    }
  }

  private async open(request: Request, principal: GatewayPrincipal, parsedBody: unknown): Promise<Response> {
    await this.makeRoom();
    // The id is chosen here rather than by the transport, so the event store's view can be
    // scoped to it before the first event (the initialize response) is stored.
    const id = randomUUID();
    const { server, transport } = this.streamable(id, principal);
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    if (transport.sessionId === undefined) await this.closeSession(id, { server, transport });
    // Recorded before the client has the id, so any replica it sends the next request to knows it.
    else await this.recordOpened(id, principal, 'streamable', { initialize: parsedBody });
    return response;
  }

  /**
   * Re-creates session `id` here from its stored state (the owner that opened it is gone, and
   * this replica took it over): a new server for `principal`, bound to it as the original was.
   */
  private restore(id: string, principal: GatewayPrincipal, state: unknown): Promise<Session | undefined> {
    const pending = this.restoring.get(id);
    if (pending) return pending;
    const restored = (async () => {
      await this.makeRoom();
      const { server, transport } = this.streamable(id, principal);
      await server.connect(transport);
      if (await replayInitialize(transport, storedInitialize(state))) return this.sessions.get(id);
      await this.closeSession(id, { server, transport });
      return undefined;
    })().finally(() => this.restoring.delete(id));
    this.restoring.set(id, restored);
    return restored;
  }

  /** A 2025 session's server and transport, entered in the table once it is initialized. */
  private streamable(
    id: string,
    principal: GatewayPrincipal,
  ): { server: Server; transport: WebStandardStreamableHTTPServerTransport } {
    const server = this.server(principal);
    const events = this.events.forSession(id);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: events,
      retryInterval: this.options.retryMs ?? 1_000,
      onsessioninitialized: () => {
        this.sessions.set(id, {
          kind: 'streamable',
          server,
          transport,
          events,
          fastCalls: new Map(),
          principal: principal.id,
          viewer: principal,
          lastSeen: this.now(),
        });
      },
      onsessionclosed: () => this.forget(id),
    });
    return { server, transport };
  }

  /** Tells the other replicas of a session opened here; a store that fails leaves it local. */
  private async recordOpened(
    id: string,
    principal: GatewayPrincipal,
    kind: 'streamable' | 'sse',
    state: unknown,
  ): Promise<void> {
    await this.options.placement
      ?.opened({ id, principal: principal.id, kind, state })
      .catch((error: unknown) =>
        this.options.onerror?.(error instanceof Error ? error : new Error(String(error))),
      );
  }

  private server(principal: GatewayPrincipal): Server {
    const server = this.options.build(principal);
    if (this.options.onerror) server.onerror = this.options.onerror;
    return server;
  }

  /** At the cap, the least recently used session is closed. */
  private async makeRoom(): Promise<void> {
    while (this.sessions.size >= this.options.sessions.max) {
      let oldest: [string, Session] | undefined;
      for (const entry of this.sessions)
        if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
      if (!oldest) return;
      await this.closeSession(...oldest);
    }
  }

  /** Removes a session from the table (if it is still `session`) and drops its stored events. */
  private forget(id: string, session?: Pick<Session, 'server' | 'transport'>): void {
    const known = this.sessions.get(id);
    if (session === undefined || known === session) {
      this.sessions.delete(id);
      if (known && !this.closing) this.options.placement?.closed(id);
      // As the SDK's server aborts its handlers when the session closes: the calls end upstream.
      if (known?.kind === 'streamable') {
        for (const call of known.fastCalls.values()) call.abort(new Error('The session closed.'));
        known.fastCalls.clear();
      }
    }
    // A replica that stops keeps its sessions' archived events: another takes them over.
    this.events.clear(id, { archived: !this.closing });
  }

  private async closeSession(id: string, session: Pick<Session, 'server' | 'transport'>): Promise<void> {
    this.forget(id, session);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }
}

/** A request as the chain sees it: its head, the web `Request` when needed, and its signal. */
export interface RequestSource {
  readonly head: RequestHead;
  readonly request: () => Request;
  readonly signal: AbortSignal;
}

function sourceOf(request: Request): RequestSource {
  return { head: requestHead(request), request: () => request, signal: request.signal };
}

// Unreachable with the security chain in front (it always passes a principal); allows nothing.
const ANONYMOUS: GatewayPrincipal = { id: 'anonymous', allows: () => false };
