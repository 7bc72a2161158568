import type { Tool } from '@modelcontextprotocol/client';
import type { JSONRPCRequest, Result, Server, ServerContext } from '@modelcontextprotocol/server';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  declaresApps,
  isAppUri,
  isModelVisible,
  toolUi,
  withoutUiMeta,
} from '../../core/mcp-apps.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { Host } from '../../host/host.js';
import { callerCapabilities } from './consent-gate.js';
import type { OpenedViews, ViewScope } from './opened-views.js';
import { TaskAwareServer } from './task-routes.js';

/**
 * MCP Apps through the gateway (SEP-1865). To a client that declares the extension with the
 * HTML profile, the gateway declares it too and relays what the upstreams say of their views
 * untouched: every tool as its server listed it (`_meta` byte for byte, app-only tools
 * included — that client's host keeps them from its model and lets its views call them),
 * and the `ui://` views, read as they are (not guarded: a view is HTML for a sandbox, not
 * text for a model). To a client that does not, the extension is not there: no capability,
 * no `_meta.ui`, no `ui://` resources, and no app-only tools in its lists or reachable by
 * its calls — it would hand them to its model, which the spec forbids (§Visibility: "Host
 * MUST NOT include tools in the agent's tool list when their visibility does not include
 * 'model'").
 *
 * Through the gateway a client sees one server where there are many: its host would let a
 * view of one upstream call another upstream's app-only tools. The gateway cannot tell a
 * view's call from its model's on the MCP wire (neither carries a mark), but it sees which
 * views a caller reads: an app-only tool of server S is callable only in a scope that has read
 * one of S's views (opened-views.ts), refused and audited otherwise, and audited as the app's
 * when it runs. Tools the model may call stay callable as model tools. Where the caller is
 * known exactly — the dashboard's app calls (`POST /api/apps/call`) — a view reaches only its
 * own server's tools (docs/apps.md).
 */

/** What the gateway declares of the extension when some caller may use it. */
export function appsServerCapability(): { mimeTypes: string[] } {
  return { mimeTypes: [APP_MIME_TYPE] };
}

/** Whether the calling client declared MCP Apps: the request's capabilities (2026-07-28) or its session's. */
export function callerDeclaresApps(server: Server, ctx: ServerContext): boolean {
  return declaresApps(callerCapabilities(server, ctx));
}

/**
 * The served tools as `tools/list` answers them: all, as listed upstream, to a caller that
 * declared MCP Apps; to another, only the model's, without `_meta.ui`.
 */
export function listedTools(tools: ReadonlyMap<string, CatalogTool>, declared: boolean): Tool[] {
  const out: Tool[] = [];
  for (const [name, t] of tools) {
    if (declared) out.push({ ...t.tool, name });
    else if (isModelVisible(t.tool)) out.push(withoutUiMeta({ ...t.tool, name }));
  }
  return out;
}

/** Whether `entry` may be called by a caller that did (or did not) declare MCP Apps. */
export function callableBy(entry: CatalogTool, declared: boolean): boolean {
  return declared || isModelVisible(entry.tool);
}

/**
 * Where a request's view reads count (opened-views.ts): its 2025 session (the session's server
 * instance) or, for a 2026-07-28 request, which has none, its principal.
 */
export function viewScope(server: Server, ctx: ServerContext, principal: string): ViewScope {
  return ctx.mcpReq.envelope === undefined ? { session: server } : { principal };
}

/**
 * Why a call of `entry` is refused to a caller that declared MCP Apps, when `entry` is app-only
 * (its visibility leaves out "model") and the caller's scope has read none of its server's
 * views: the text of the tool error, after a denied audit record (`via: "app"`, as the
 * dashboard's refusals). Undefined when the call may go on: a tool the model may call, or an
 * app-only tool of a server whose view this scope has read.
 */
export async function appOnlyRefusal(
  host: Host,
  call: {
    readonly views: OpenedViews;
    readonly scope: ViewScope;
    readonly entry: CatalogTool;
    readonly name: string;
    readonly session: string;
  },
): Promise<string | undefined> {
  const { entry } = call;
  if (isModelVisible(entry.tool) || call.views.has(call.scope, entry.server)) return undefined;
  const reason = `no view of server "${entry.server}" was read in this ${'session' in call.scope ? 'session' : "principal's requests"}`;
  await host.governor.note({
    action: 'tool_call',
    session: call.session,
    server: entry.server,
    outcome: 'denied',
    details: { tool: entry.tool.name, via: 'app', reason },
  });
  return (
    `${call.name} is refused: its visibility is ["app"], so only a view of server "${entry.server}" may call it, ` +
    `and ${reason}. A host reads a view (resources/read of its ui:// URI) before it renders it; ` +
    "a view calls its own server's app-only tools, never another server's."
  );
}

/**
 * The server a view URI belongs to, for a caller that declared MCP Apps: the one server among
 * `tools` (the caller's served tools) whose tools name it as their view. Servers may leave
 * their views out of `resources/list` (spec §Resource Discovery), so a tool's reference is
 * how the gateway knows where to read one. Undefined when none, or when two servers name the
 * same URI (it could be either's).
 */
export function viewServer(tools: ReadonlyMap<string, CatalogTool>, uri: string): string | undefined {
  if (!isAppUri(uri)) return undefined;
  let found: string | undefined;
  for (const t of tools.values()) {
    if (toolUi(t.tool).resourceUri !== uri) continue;
    if (found !== undefined && found !== t.server) return undefined;
    found = t.server;
  }
  return found;
}

/**
 * The gateway's MCP server: a TaskAwareServer whose handshake answers (`initialize`,
 * `server/discover`) declare the MCP Apps extension only to a client that declared it.
 * The SDK builds those answers from one static capability set; this is where a caller's own
 * capabilities are known, so the declaration is taken out there for the others.
 */
export class GatewayMcpServer extends TaskAwareServer {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'initialize' && method !== 'server/discover') return wrapped;
    return async (request, ctx) => {
      const result = await wrapped(request, ctx);
      const declared =
        method === 'initialize'
          ? declaresApps((request.params as { capabilities?: unknown } | undefined)?.capabilities)
          : declaresApps(callerCapabilities(this, ctx));
      return declared ? result : withoutAppsExtension(result);
    };
  }
}

/** A handshake answer with the extension left out of its capabilities. */
function withoutAppsExtension(result: Result): Result {
  const capabilities = (result as { capabilities?: Record<string, unknown> }).capabilities;
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  if (!extensions || !(APPS_EXTENSION in extensions)) return result;
  const { [APPS_EXTENSION]: _ui, ...rest } = extensions;
  const { extensions: _old, ...others } = capabilities as Record<string, unknown>;
  return {
    ...result,
    capabilities: Object.keys(rest).length > 0 ? { ...others, extensions: rest } : others,
  };
}
