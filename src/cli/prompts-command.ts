import { promptSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openListing } from './connect-servers.js';
import { jsonDocument } from './output/json-document.js';
import { printable, styleFor } from './output/style.js';
import { renderTable } from './output/table.js';
import { unavailableServers, warnUnavailable } from './server-state.js';

/**
 * `switchboard prompts [server]`: the prompts of every connected server (or of one) as
 * `name(arg, optional?)` with their descriptions. "switchboard prompt <name>" renders one.
 */
export const PROMPTS_USAGE = `usage: switchboard prompts [server]
  Lists the prompts the servers offer, with their arguments (optional ones end in "?").
  Render one with: switchboard prompt <server.prompt> [key=value …]`;

export async function promptsCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 1) throw new UsageError('prompts takes at most one server name.');
  const only = positionals[0];
  const switchboard = await openListing(ctx, only);
  try {
    const { host } = switchboard;
    const prompts = host.catalog().prompts.filter((p) => only === undefined || p.server === only);
    const unavailable = unavailableServers(host);
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          // Each prompt and argument as listed (`_meta`, `icons` …) after the conveniences.
          prompts: prompts.map(({ server, item }) =>
            jsonDocument(
              {
                server,
                name: item.name,
                title: item.title ?? null,
                description: item.description ?? null,
                arguments: (item.arguments ?? []).map((a) =>
                  jsonDocument(
                    { name: a.name, description: a.description ?? null, required: a.required === true },
                    a,
                  ),
                ),
              },
              item,
            ),
          ),
          unavailable,
        }),
      );
      return EXIT.ok;
    }
    const style = styleFor(process.stdout, ctx.env);
    const width = process.stdout.columns;
    const servers = [...new Set(prompts.map((p) => p.server))];
    servers.forEach((server, index) => {
      if (index > 0) ctx.out('');
      ctx.out(style.bold(server));
      const rows = prompts
        .filter((p) => p.server === server)
        .map((p) => [
          printable(promptSignature(p.item), { singleLine: true }),
          style.dim(printable(p.item.description ?? '', { singleLine: true })),
        ]);
      for (const line of renderTable(rows, { indent: 2, ...(width && { maxWidth: width }) })) ctx.out(line);
    });
    if (servers.length === 0) ctx.out(only ? `${only} offers no prompts.` : 'No server offers prompts.');
    warnUnavailable(ctx, unavailable);
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}
