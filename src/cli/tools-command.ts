import { renderSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openListing } from './connect-servers.js';
import { jsonDocument } from './output/json-document.js';
import { printable, styleFor } from './output/style.js';
import { truncate } from './output/table.js';
import { unavailableServers, warnUnavailable } from './server-state.js';

/**
 * `switchboard tools [server]`: every tool as a signature with its description, server by
 * server, and the tools Switchboard refused and why. With a server name only that server is
 * connected (exit 3 when it cannot be).
 */
export const TOOLS_USAGE = `usage: switchboard tools [server]
  Lists the tools of every connected server (or of one) as signatures, e.g.
    echo(text: string, times?: integer = 1) → text
  with the first line of each description (all of it with --verbose). "switchboard describe
  <server.tool>" shows one tool in full.`;

export async function toolsCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 1) throw new UsageError('tools takes at most one server name.');
  const only = positionals[0];
  const switchboard = await openListing(ctx, only);
  try {
    const { host } = switchboard;
    const catalog = host.catalog();
    const tools = catalog.tools.filter((t) => only === undefined || t.server === only);
    const rejected = catalog.rejected.filter((r) => only === undefined || r.server === only);
    const unavailable = unavailableServers(host);
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          // Each tool as the server listed it (`_meta`, `icons` …) after the conveniences.
          tools: tools.map((t) =>
            jsonDocument(
              {
                server: t.server,
                name: t.tool.name,
                qualifiedName: t.name,
                title: t.tool.title ?? null,
                description: t.tool.description ?? null,
                signature: renderSignature(t.tool),
                inputSchema: t.tool.inputSchema,
                outputSchema: t.tool.outputSchema ?? null,
                annotations: t.tool.annotations ?? null,
              },
              t.tool,
            ),
          ),
          rejected: rejected.map(({ server, tool, reason, detail }) => ({ server, tool, reason, detail })),
          unavailable,
        }),
      );
      return EXIT.ok;
    }
    const style = styleFor(process.stdout, ctx.env);
    const width = process.stdout.columns;
    const servers = host
      .servers()
      .filter((s) => s.state === 'connected' && (only === undefined || s.name === only));
    servers.forEach((server, index) => {
      const mine = tools.filter((t) => t.server === server.name);
      if (index > 0) ctx.out('');
      ctx.out(
        `${style.bold(server.name)} ${style.dim(`(${mine.length} tool${mine.length === 1 ? '' : 's'})`)}`,
      );
      for (const t of mine) {
        ctx.out(`  ${printable(renderSignature(t.tool), { singleLine: true })}`);
        const description = printable(t.tool.description ?? '').trim();
        if (description === '') continue;
        if (ctx.verbose) for (const line of description.split('\n')) ctx.out(style.dim(`      ${line}`));
        else {
          const first = printable(description.split('\n')[0] ?? '', { singleLine: true });
          ctx.out(style.dim(`      ${width ? truncate(first, Math.max(20, width - 6)) : first}`));
        }
      }
      for (const r of rejected.filter((x) => x.server === server.name))
        ctx.out(
          style.yellow(`  refused ${printable(r.tool, { singleLine: true })} (${r.reason}): ${r.detail}`),
        );
    });
    if (servers.length === 0 && unavailable.length === 0)
      ctx.out('No servers configured. Add one to switchboard.json (see "switchboard add --help").');
    warnUnavailable(ctx, unavailable);
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}
