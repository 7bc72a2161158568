/**
 * Which upstream servers' MCP App views a gateway caller has read: the binding that keeps an
 * app-only tool (visibility `["app"]`) to the views of its own server (SEP-1865 §Visibility:
 * "callable by the app from the same server connection only"; "cross-server tool calls are
 * always blocked for app-only tools"). The MCP wire does not say whether a `tools/call` comes
 * from a view or from the client's model, nor from which view; what the gateway does see is
 * the `resources/read` of a `ui://` view, which a host makes before it renders one (spec
 * §Resource Discovery: "Host MUST use resources/read to fetch the referenced resource URI").
 * So server S's app-only tools are callable in a scope only once that scope has read one of
 * S's views.
 *
 * The scope is what the gateway can tell apart: a 2025-era session (one server instance per
 * `Mcp-Session-Id`, or the stdio connection), for its lifetime; a 2026-07-28 request has no
 * session, so its scope is the principal, and a read opens S for `ttlMs` after the last read
 * or call (renewed by each). In memory, bounded; a restarted gateway or another replica has
 * not seen the read, and the call is refused until the view is read again.
 */

/** Where a read counts: a 2025 session (its server instance) or a principal's 2026-07-28 requests. */
export type ViewScope = { readonly session: object } | { readonly principal: string };

export interface OpenedViewsOptions {
  /** How long a principal's read (2026-07-28) keeps a server open after its last read or call. Default 1 h. */
  readonly ttlMs?: number;
  /** Most principals remembered; the least recently used goes first. Default 10,000. */
  readonly maxPrincipals?: number;
  readonly now?: () => number;
}

export class OpenedViews {
  private readonly sessions = new WeakMap<object, Set<string>>();
  /** Principal → server → until when; in order of last use. */
  private readonly principals = new Map<string, Map<string, number>>();
  private readonly ttlMs: number;
  private readonly maxPrincipals: number;
  private readonly now: () => number;

  constructor(options: OpenedViewsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.maxPrincipals = options.maxPrincipals ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** `scope` read a view of `server`. */
  open(scope: ViewScope, server: string): void {
    if ('session' in scope) {
      const set = this.sessions.get(scope.session) ?? new Set<string>();
      set.add(server);
      this.sessions.set(scope.session, set);
      return;
    }
    const servers = this.principals.get(scope.principal) ?? new Map<string, number>();
    this.principals.delete(scope.principal);
    servers.set(server, this.now() + this.ttlMs);
    this.principals.set(scope.principal, servers);
    if (this.principals.size > this.maxPrincipals)
      this.principals.delete(this.principals.keys().next().value as string);
  }

  /** Whether `scope` has read a view of `server` (and, for a principal, recently enough: renewed). */
  has(scope: ViewScope, server: string): boolean {
    if ('session' in scope) return this.sessions.get(scope.session)?.has(server) === true;
    const until = this.principals.get(scope.principal)?.get(server);
    if (until === undefined) return false;
    if (until <= this.now()) {
      this.principals.get(scope.principal)?.delete(server);
      return false;
    }
    this.open(scope, server);
    return true;
  }
}
