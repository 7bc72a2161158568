import { SwitchboardError } from '../core/errors.js';
import type { Host } from '../host/host.js';
import { matchesUriTemplate } from './arguments/uri-template.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openServers } from './connect-servers.js';
import { jsonDocument } from './output/json-document.js';
import { describeMedia, saveMedia } from './output/media-files.js';
import { printable } from './output/style.js';
import { requireConnected } from './server-state.js';

/**
 * `switchboard read <uri> [--server NAME]`: reads a resource from the server that offers it
 * (its resource list first, then its resource templates); text goes to stdout, binary content
 * to a file whose path is printed. With --server only that server is connected.
 */
export const READ_USAGE = `usage: switchboard read <uri> [--server NAME]
  Reads a resource. The server is the one that lists the URI or has a template it matches;
  --server names it (and connects only it). Text is printed; binary content is saved to a
  file under the data dir and its path printed.`;

export async function readCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, { server: { type: 'string' } });
  const uri = positionals[0];
  if (uri === undefined || positionals.length > 1) throw new UsageError('read takes exactly one URI.');
  const switchboard = await openServers(ctx, values.server === undefined ? {} : { only: [values.server] });
  try {
    const { host } = switchboard;
    const server = values.server ?? ownerOf(host, uri);
    requireConnected(host, server);
    const result = await host.readResource(server, uri);
    const contents: Content[] = [];
    for (const c of result.contents) {
      if ('text' in c && typeof c.text === 'string') {
        contents.push({ uri: c.uri, mimeType: c.mimeType ?? null, text: c.text });
        continue;
      }
      const blob = 'blob' in c && typeof c.blob === 'string' ? c.blob : '';
      const mimeType = c.mimeType ?? 'application/octet-stream';
      const [file] = await saveMedia(ctx.dataDir, [
        { type: 'blob', mimeType, data: Buffer.from(blob, 'base64'), uri: c.uri },
      ]);
      contents.push({ uri: c.uri, mimeType: file!.mimeType, bytes: file!.bytes, path: file!.path });
    }
    if (ctx.json) {
      // The result as returned (`_meta`; each content's own fields, a blob's base64 too) after
      // the conveniences: a saved file's `path` and `bytes` for binary content.
      ctx.out(
        JSON.stringify(
          jsonDocument(
            {
              server,
              uri,
              contents: contents.map((c, index) => jsonDocument(c, result.contents[index] ?? {})),
            },
            result,
          ),
        ),
      );
      return EXIT.ok;
    }
    // Text is printed as it is when piped (it is data), made safe on a terminal.
    const safe = process.stdout.isTTY ? (text: string) => printable(text) : (text: string) => text;
    for (const c of contents) ctx.out('text' in c ? safe(c.text) : describeMedia(c));
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}

/** One item of `contents`: text as it is, binary content as the file it was saved to. */
type Content =
  | { readonly uri: string; readonly mimeType: string | null; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly bytes: number; readonly path: string };

/** The one connected server that lists `uri`, or else has a template it matches. */
function ownerOf(host: Host, uri: string): string {
  const catalog = host.catalog();
  const listed = [...new Set(catalog.resources.filter((r) => r.item.uri === uri).map((r) => r.server))];
  const templated = [
    ...new Set(
      catalog.resourceTemplates
        .filter((t) => matchesUriTemplate(t.item.uriTemplate, uri))
        .map((t) => t.server),
    ),
  ];
  const owners = listed.length > 0 ? listed : templated;
  if (owners.length === 1) return owners[0]!;
  if (owners.length > 1)
    throw new UsageError(
      `More than one server offers ${uri} (${owners.join(', ')}): choose one with --server.`,
    );
  const down = host
    .servers()
    .filter((s) => s.state !== 'connected')
    .map((s) => s.name);
  throw new SwitchboardError(
    'NOT_FOUND',
    `No connected server lists ${uri} or has a template that matches it; name the server with --server` +
      `${down.length > 0 ? ` (not connected: ${down.join(', ')})` : ''}.`,
    { details: { uri } },
  );
}
