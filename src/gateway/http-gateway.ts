import type { GatewayConfig } from '../core/config/gateway-config.js';
import type { Host } from '../host/host.js';
import type { GatewayContext, GatewayLogger } from './http/context.js';
import { listen } from './http/node-adapter.js';
import { buildSecurityChain } from './http/security-chain.js';
import { createGatewayServer, servedTools } from './mcp/gateway-server.js';
import { IdempotencyCache } from './mcp/idempotency.js';
import { jsonRpcError, McpEndpoint } from './mcp/mcp-endpoint.js';

/**
 * `switchboard serve`: the governed catalog as one MCP server over Streamable HTTP, both eras
 * on one path, behind the security chain (security-chain.ts). Catalog changes reach every
 * client as list-changed notifications.
 */
export interface HttpGateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:7777/mcp`. */
  readonly url: string;
  /** How many 2025-era sessions are open. */
  readonly sessions: number;
  close(): Promise<void>;
}

export async function startHttpGateway(
  host: Host,
  settings: GatewayConfig,
  options: { readonly log?: GatewayLogger; readonly env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<HttpGateway> {
  const idempotency = new IdempotencyCache<Awaited<ReturnType<Host['callTool']>>['raw']>(
    settings.idempotencyTtlMs,
  );
  const endpoint = new McpEndpoint({
    build: (principal) =>
      createGatewayServer({
        host,
        principal,
        naming: settings.names,
        expose: settings.expose,
        consent: settings.consent,
        limits: settings.limits,
        idempotency,
      }),
    sessions: settings.sessions,
    toolFor: (principal, name) => {
      const served = servedTools(host, principal, settings.names, settings.expose.tools).get(name);
      return served && { ...served.tool, name };
    },
  });
  const onCatalog = () => endpoint.listsChanged();
  host.on('catalog', onCatalog);

  const handler = async (ctx: GatewayContext): Promise<Response> => {
    if (new URL(ctx.request.url).pathname !== settings.path) {
      return jsonRpcError(404, -32000, `Not found; the MCP endpoint is ${settings.path}.`);
    }
    let parsedBody: unknown;
    if (ctx.body && ctx.body.byteLength > 0) {
      try {
        parsedBody = JSON.parse(Buffer.from(ctx.body).toString('utf8'));
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    // The chain authenticated and authorized the caller before this point.
    return endpoint.handle(ctx.request, ctx.principal!, parsedBody);
  };
  const web = buildSecurityChain(settings, handler, {
    bind: { host: settings.host, port: settings.port },
    ...(options.log && { log: options.log }),
    ...(options.env && { env: options.env }),
  });
  const listener = await listen(web, { host: settings.host, port: settings.port });
  return {
    url: `${listener.url}${settings.path}`,
    get sessions() {
      return endpoint.sessionCount;
    },
    close: async () => {
      host.off('catalog', onCatalog);
      await endpoint.close();
      await listener.close();
    },
  };
}
