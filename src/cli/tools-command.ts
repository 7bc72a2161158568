import type { Tool } from '@modelcontextprotocol/client';
import type { ApiServer, ApiTool } from '../gateway/api/api-types.js';
import { renderSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openListing } from './connect-servers.js';
import { appJson, appLabel } from './output/app-label.js';
import { jsonDocument } from './output/json-document.js';
import { printable, styleFor } from './output/style.js';
import { truncate } from './output/table.js';
import { askGateway, GatewayUnreachable, type RunningGateway, viaGateway } from './running-gateway.js';
import { type UnavailableServer, unavailableServers, warnUnavailable } from './server-state.js';

/**
 * `switchboard tools [server]`: every tool as a signature with its description, server by
 * server, and the tools Switchboard refused and why. With a server name only that server is
 * connected (exit 3 when it cannot be).
 */
export const TOOLS_USAGE = `usage: switchboard tools [server]
  Lists the tools of every connected server (or of one) as signatures, e.g.
    echo(text: string, times?: integer = 1) → text
  with the first line of each description (all of it with --verbose); a tool with an MCP App
  is marked [app ui://…] (and "app only" for a tool only its view may call). "switchboard
  describe <server.tool>" shows one tool in full.`;

/** What the verb shows, from the servers started here or from a running gateway. */
interface ToolsView {
  readonly tools: readonly { readonly server: string; readonly qualifiedName: string; readonly tool: Tool }[];
  readonly rejected: readonly { server: string; tool: string; reason: string; detail: string }[];
  readonly unavailable: readonly UnavailableServer[];
  /** The connected servers shown, in order. */
  readonly servers: readonly string[];
}

export async function toolsCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 1) throw new UsageError('tools takes at most one server name.');
  const only = positionals[0];
  const view =
    (await viaGateway(ctx, (gateway) => gatewayView(gateway, only))) ?? (await localView(ctx, only));
  printTools(ctx, view);
  return EXIT.ok;
}

async function localView(ctx: CliContext, only: string | undefined): Promise<ToolsView> {
  const switchboard = await openListing(ctx, only);
  try {
    const { host } = switchboard;
    const catalog = host.catalog();
    return {
      tools: catalog.tools
        .filter((t) => only === undefined || t.server === only)
        .map((t) => ({ server: t.server, qualifiedName: t.name, tool: t.tool })),
      rejected: catalog.rejected
        .filter((r) => only === undefined || r.server === only)
        .map(({ server, tool, reason, detail }) => ({ server, tool, reason, detail })),
      unavailable: unavailableServers(host),
      servers: host
        .servers()
        .filter((s) => s.state === 'connected' && (only === undefined || s.name === only))
        .map((s) => s.name),
    };
  } finally {
    await switchboard.close();
  }
}

/**
 * The same from a running gateway's API. A named server it does not have, or has but not
 * connected, is left to the local path, which says exactly what is wrong with it.
 */
async function gatewayView(gateway: RunningGateway, only: string | undefined): Promise<ToolsView> {
  const query = only === undefined ? '' : `?server=${encodeURIComponent(only)}`;
  const [{ servers }, { tools }] = await Promise.all([
    askGateway<{ servers: readonly ApiServer[] }>(gateway, 'GET', '/api/servers'),
    askGateway<{ tools: readonly ApiTool[] }>(gateway, 'GET', `/api/tools${query}`),
  ]);
  if (only !== undefined && !servers.some((s) => s.name === only && s.state === 'connected'))
    throw new GatewayUnreachable(`the gateway has no connected server "${only}"`);
  const shown = servers.filter((s) => only === undefined || s.name === only);
  return {
    tools: tools.map((t) => ({ server: t.server, qualifiedName: t.name, tool: toolOf(t) })),
    rejected: shown.flatMap((s) => s.rejectedTools.map((r) => ({ server: s.name, ...r }))),
    unavailable: servers
      .filter((s) => s.state !== 'connected')
      .map((s) => ({
        server: s.name,
        state: s.state,
        error: s.error ? { code: s.error.code, message: s.error.message } : null,
        hint: s.hint ?? null,
      })),
    servers: shown.filter((s) => s.state === 'connected').map((s) => s.name),
  };
}

/** An API tool as the MCP `Tool` it describes. */
export function toolOf(t: ApiTool): Tool {
  return {
    name: t.tool,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    ...(t.title !== undefined && { title: t.title }),
    ...(t.description !== undefined && { description: t.description }),
    ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema as Tool['outputSchema'] }),
    ...(t.annotations !== undefined && { annotations: t.annotations as Tool['annotations'] }),
    ...(t.app !== undefined && { _meta: { ui: t.app } }),
  };
}

function printTools(ctx: CliContext, view: ToolsView): void {
  const { tools, rejected, unavailable } = view;
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        // Each tool as the server listed it (`_meta`, `icons` …) after the conveniences.
        tools: tools.map((t) =>
          jsonDocument(
            {
              server: t.server,
              name: t.tool.name,
              qualifiedName: t.qualifiedName,
              title: t.tool.title ?? null,
              description: t.tool.description ?? null,
              signature: renderSignature(t.tool),
              inputSchema: t.tool.inputSchema,
              outputSchema: t.tool.outputSchema ?? null,
              annotations: t.tool.annotations ?? null,
              app: appJson(t.tool),
            },
            t.tool,
          ),
        ),
        rejected,
        unavailable,
      }),
    );
    return;
  }
  const style = styleFor(process.stdout, ctx.env);
  const width = process.stdout.columns;
  view.servers.forEach((server, index) => {
    const mine = tools.filter((t) => t.server === server);
    if (index > 0) ctx.out('');
    ctx.out(`${style.bold(server)} ${style.dim(`(${mine.length} tool${mine.length === 1 ? '' : 's'})`)}`);
    for (const t of mine) {
      const app = appLabel(t.tool);
      const mark = app === undefined ? '' : `  ${style.cyan(`[${printable(app, { singleLine: true })}]`)}`;
      ctx.out(`  ${printable(renderSignature(t.tool), { singleLine: true })}${mark}`);
      const description = printable(t.tool.description ?? '').trim();
      if (description === '') continue;
      if (ctx.verbose) for (const line of description.split('\n')) ctx.out(style.dim(`      ${line}`));
      else {
        const first = printable(description.split('\n')[0] ?? '', { singleLine: true });
        ctx.out(style.dim(`      ${width ? truncate(first, Math.max(20, width - 6)) : first}`));
      }
    }
    for (const r of rejected.filter((x) => x.server === server))
      ctx.out(
        style.yellow(`  refused ${printable(r.tool, { singleLine: true })} (${r.reason}): ${r.detail}`),
      );
  });
  if (view.servers.length === 0 && unavailable.length === 0)
    ctx.out('No servers configured. Add one to switchboard.json (see "switchboard add --help").');
  warnUnavailable(ctx, unavailable);
}
