import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
  type Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { GatewayPrincipal } from './gateway-server.js';
import { checkParamHeaders } from './param-headers.js';

/**
 * The `/mcp` endpoint for both eras. 2026-07-28 requests are stateless: the SDK's
 * `createMcpHandler` builds one server instance per request for its principal. 2025-era
 * traffic gets real sessions (MCP 2025-11-25 "Session Management": `Mcp-Session-Id`, a GET
 * stream for server→client messages, DELETE), which `createMcpHandler` does not offer — hence
 * the session table here, routed with the SDK's own classifier. A session belongs to the
 * principal that opened it; idle sessions are closed after a TTL, and at the cap the least
 * recently used one makes room, so a flood of `initialize` cannot exhaust memory.
 */
export interface McpEndpointOptions {
  /** A server instance for `principal` (one per session, or per modern request). */
  readonly build: (principal: GatewayPrincipal) => Server;
  readonly sessions: { readonly idleTtlMs: number; readonly max: number };
  readonly onerror?: (error: Error) => void;
  readonly now?: () => number;
  /** The served tool of a `tools/call` by name, for the SEP-2243 `Mcp-Param-*` header check. */
  readonly toolFor?: (principal: GatewayPrincipal, name: string) => Tool | undefined;
}

interface Session {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly principal: string;
  lastSeen: number;
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly modern: McpHttpHandler;
  private readonly reaper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: McpEndpointOptions) {
    this.now = options.now ?? Date.now;
    this.modern = createMcpHandler(
      (ctx) => options.build((ctx.authInfo?.extra?.principal as GatewayPrincipal | undefined) ?? ANONYMOUS),
      { legacy: 'reject', ...(options.onerror && { onerror: options.onerror }) },
    );
    const every = Math.max(1_000, Math.min(60_000, Math.floor(options.sessions.idleTtlMs / 2)));
    this.reaper = setInterval(() => void this.reap(), every);
    this.reaper.unref();
  }

  /** How many 2025-era sessions are open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Serves one request of `principal` (already authenticated by the security chain). */
  async handle(request: Request, principal: GatewayPrincipal, parsedBody?: unknown): Promise<Response> {
    if (await isLegacyRequest(request, parsedBody)) return this.legacy(request, principal, parsedBody);
    const mismatch = this.paramHeaderRefusal(request, principal, parsedBody);
    if (mismatch) return mismatch;
    return this.modern.fetch(request, {
      authInfo: { token: '', clientId: principal.id, scopes: [], extra: { principal } },
      ...(parsedBody !== undefined && { parsedBody }),
    });
  }

  /** Tells every client the lists changed (sessions get notifications; modern clients via `subscriptions/listen`). */
  listsChanged(): void {
    for (const session of this.sessions.values()) {
      void session.server.sendToolListChanged().catch(() => undefined);
      void session.server.sendPromptListChanged().catch(() => undefined);
      void session.server.sendResourceListChanged().catch(() => undefined);
    }
    this.modern.notify.toolsChanged();
    this.modern.notify.promptsChanged();
    this.modern.notify.resourcesChanged();
  }

  /**
   * 400 / -32020 (HeaderMismatch) when a 2026-07-28 `tools/call` disagrees with its
   * `Mcp-Param-*` headers (SEP-2243): intermediaries route on those headers, so a request whose
   * headers say one thing and body another must not be served.
   */
  private paramHeaderRefusal(
    request: Request,
    principal: GatewayPrincipal,
    body: unknown,
  ): Response | undefined {
    if (!this.options.toolFor || typeof body !== 'object' || body === null || Array.isArray(body))
      return undefined;
    const { id, method, params } = body as { id?: unknown; method?: unknown; params?: unknown };
    if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
    const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
    const tool = typeof name === 'string' ? this.options.toolFor(principal, name) : undefined;
    if (!tool || typeof args !== 'object' || args === null) return undefined;
    const mismatch = checkParamHeaders(tool, args as Record<string, unknown>, request.headers);
    if (!mismatch) return undefined;
    return Response.json(
      {
        jsonrpc: '2.0',
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
        error: {
          code: -32020,
          message: `Header mismatch: ${mismatch.reason}`,
          data: { header: mismatch.header },
        },
      },
      { status: 400 },
    );
  }

  /** Closes every session and in-flight modern exchange. */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => closeSession(s)));
    await this.modern.close();
  }

  /** Closes sessions idle past the TTL; returns how many. */
  async reap(): Promise<number> {
    const cutoff = this.now() - this.options.sessions.idleTtlMs;
    const idle = [...this.sessions].filter(([, s]) => s.lastSeen < cutoff);
    for (const [id] of idle) this.sessions.delete(id);
    await Promise.all(idle.map(([, s]) => closeSession(s)));
    return idle.length;
  }

  private async legacy(
    request: Request,
    principal: GatewayPrincipal,
    parsedBody: unknown,
  ): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      // Another principal's session id is answered like an unknown one: nothing to learn from it.
      if (session === undefined || session.principal !== principal.id) {
        return jsonRpcError(404, -32001, 'Session not found; initialize a new one.');
      }
      session.lastSeen = this.now();
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (request.method === 'POST' && isInitializeRequest(parsedBody))
      return this.open(request, principal, parsedBody);
    return jsonRpcError(400, -32000, 'Bad Request: no valid session id; send initialize first.');
  }

  private async open(request: Request, principal: GatewayPrincipal, parsedBody: unknown): Promise<Response> {
    await this.makeRoom();
    const server = this.options.build(principal);
    if (this.options.onerror) server.onerror = this.options.onerror;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { server, transport, principal: principal.id, lastSeen: this.now() });
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    if (transport.sessionId === undefined)
      await closeSession({ server, transport, principal: principal.id, lastSeen: 0 });
    return response;
  }

  /** At the cap, the least recently used session is closed. */
  private async makeRoom(): Promise<void> {
    while (this.sessions.size >= this.options.sessions.max) {
      let oldest: [string, Session] | undefined;
      for (const entry of this.sessions)
        if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
      if (!oldest) return;
      this.sessions.delete(oldest[0]);
      await closeSession(oldest[1]);
    }
  }
}

// Unreachable with the security chain in front (it always passes a principal); allows nothing.
const ANONYMOUS: GatewayPrincipal = { id: 'anonymous', allows: () => false };

async function closeSession(session: Session): Promise<void> {
  await session.transport.close().catch(() => undefined);
  await session.server.close().catch(() => undefined);
}

/** A JSON-RPC error body with an HTTP status, shaped like the SDK transport's own answers. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
