import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openListing } from './connect-servers.js';
import { jsonDocument } from './output/json-document.js';
import { printable, styleFor } from './output/style.js';
import { renderTable } from './output/table.js';
import { unavailableServers, warnUnavailable } from './server-state.js';

/**
 * `switchboard resources [server]`: the resources and resource templates of every connected
 * server (or of one), with their names, types and descriptions. "switchboard read <uri>"
 * reads one.
 */
export const RESOURCES_USAGE = `usage: switchboard resources [server]
  Lists the resources and resource templates the servers offer (one server's with a name).
  Read one with: switchboard read <uri>`;

export async function resourcesCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 1) throw new UsageError('resources takes at most one server name.');
  const only = positionals[0];
  const switchboard = await openListing(ctx, only);
  try {
    const { host } = switchboard;
    const catalog = host.catalog();
    const mine = <T extends { server: string }>(items: readonly T[]) =>
      items.filter((i) => only === undefined || i.server === only);
    // Each resource and template as listed (`_meta`, `annotations`, `size` …) after the conveniences.
    const resources = mine(catalog.resources).map(({ server, item }) =>
      jsonDocument(
        {
          server,
          uri: item.uri,
          name: item.name,
          title: item.title ?? null,
          mimeType: item.mimeType ?? null,
          description: item.description ?? null,
        },
        item,
      ),
    );
    const resourceTemplates = mine(catalog.resourceTemplates).map(({ server, item }) =>
      jsonDocument(
        {
          server,
          uriTemplate: item.uriTemplate,
          name: item.name,
          title: item.title ?? null,
          mimeType: item.mimeType ?? null,
          description: item.description ?? null,
        },
        item,
      ),
    );
    const unavailable = unavailableServers(host);
    if (ctx.json) {
      ctx.out(JSON.stringify({ resources, resourceTemplates, unavailable }));
      return EXIT.ok;
    }
    const style = styleFor(process.stdout, ctx.env);
    const width = process.stdout.columns;
    const servers = [...new Set([...resources, ...resourceTemplates].map((r) => r.server))];
    servers.forEach((server, index) => {
      if (index > 0) ctx.out('');
      ctx.out(style.bold(server));
      const clean = (text: string | null) => printable(text ?? '', { singleLine: true });
      const rows = [
        ...resources
          .filter((r) => r.server === server)
          .map((r) => [clean(r.uri), clean(r.name), clean(r.mimeType), clean(r.description)]),
        ...resourceTemplates
          .filter((r) => r.server === server)
          .map((r) => [
            clean(r.uriTemplate),
            clean(r.name),
            clean(r.mimeType),
            `${style.dim('(template)')} ${clean(r.description)}`.trim(),
          ]),
      ];
      for (const line of renderTable(rows, { indent: 2, ...(width && { maxWidth: width }) })) ctx.out(line);
    });
    if (servers.length === 0) ctx.out(only ? `${only} offers no resources.` : 'No server offers resources.');
    warnUnavailable(ctx, unavailable);
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}
