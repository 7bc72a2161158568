import type { ApiCallResult, ApiContent, ApiTool } from '../gateway/api/api-types.js';
import { missingRequired, parseAssignments } from './arguments/assignments.js';
import { parameterList, renderSignature } from './arguments/signature.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { printable, styleFor } from './output/style.js';
import { askGateway, GatewayUnreachable, type RunningGateway } from './running-gateway.js';
import { toolOf } from './tools-command.js';

/**
 * `switchboard call` answered by a running gateway (running-gateway.ts): the tool is found in
 * its catalog, the arguments typed by its schema as for a local call, and the call made through
 * its API (`POST /api/tools/{name}/call`), so policy and audit apply there, under the local
 * principal. What is printed has the local call's shape; media are where the gateway keeps
 * them (`/media/…` on its listener) instead of files saved here.
 */

/** What `call` parsed before choosing where to run. */
export interface GatewayCallRequest {
  readonly ref: string;
  readonly base: Record<string, unknown>;
  readonly words: readonly string[];
  readonly timeoutMs?: number;
}

export async function callViaGateway(
  ctx: CliContext,
  gateway: RunningGateway,
  request: GatewayCallRequest,
): Promise<ExitCode> {
  const { tools } = await askGateway<{ tools: readonly ApiTool[] }>(gateway, 'GET', '/api/tools');
  const found = findTool(tools, request.ref);
  const tool = toolOf(found);
  const args = { ...request.base, ...parseAssignments(request.words, tool.inputSchema) };
  const missing = missingRequired(args, tool.inputSchema);
  if (missing.length > 0) {
    const types = new Map(
      parameterList(tool.inputSchema as Record<string, unknown>).map((p) => [p.name, p.type]),
    );
    throw new UsageError(
      `${found.server}.${found.tool} needs ${missing.map((m) => `${m} (${types.get(m) ?? 'any'})`).join(', ')}: ` +
        `${renderSignature(tool)}.`,
    );
  }
  const result = await askGateway<ApiCallResult>(
    gateway,
    'POST',
    `/api/tools/${encodeURIComponent(found.name)}/call`,
    { arguments: args },
    // A call runs as long as it runs (the gateway's own limit applies), unless --timeout says.
    { timeoutMs: request.timeoutMs ?? 0 },
  );
  const text = result.content
    .filter((c): c is Extract<typeof c, { type: 'text' }> => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  const media = result.content.filter(
    (c): c is Extract<ApiContent, { type: 'image' | 'audio' | 'blob' }> =>
      c.type === 'image' || c.type === 'audio' || c.type === 'blob',
  );
  const links = result.content.filter(
    (c): c is Extract<ApiContent, { type: 'resource_link' }> => c.type === 'resource_link',
  );
  const mediaUrl = (url: string) => new URL(url, gateway.url).href;
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        server: found.server,
        tool: found.tool,
        qualifiedName: found.name,
        isError: result.isError,
        text,
        structuredContent: result.structuredContent ?? null,
        media: media.map((m) => ({
          type: m.type,
          mimeType: m.mimeType,
          bytes: m.bytes,
          path: null,
          url: mediaUrl(m.url),
          uri: m.uri ?? null,
        })),
        links: links.map((l) => ({ uri: l.uri, name: l.name, mimeType: l.mimeType ?? null })),
      }),
    );
  } else {
    const safe = process.stdout.isTTY ? (t: string) => printable(t) : (t: string) => t;
    const style = styleFor(process.stdout, ctx.env);
    if (result.structuredContent !== undefined)
      ctx.out(safe(JSON.stringify(result.structuredContent, null, 2)));
    else if (text !== '') ctx.out(safe(text));
    for (const m of media) ctx.out(`${m.mimeType}, ${m.bytes} bytes: ${mediaUrl(m.url)}`);
    for (const l of links)
      ctx.out(
        `${style.dim('link')} ${safe(l.name)} ${style.cyan(safe(l.uri))}${l.mimeType ? ` (${l.mimeType})` : ''}`,
      );
  }
  if (result.isError) {
    if (!ctx.json && !ctx.quiet) ctx.err(`switchboard: ${found.server}.${found.tool} returned an error.`);
    return EXIT.toolError;
  }
  return EXIT.ok;
}

/** The tool `ref` names in the gateway's catalog: `server.tool`, `mcp__server__tool`, or a bare name that only one server has. */
function findTool(tools: readonly ApiTool[], ref: string): ApiTool {
  const exact = tools.find((t) => t.name === ref || `${t.server}.${t.tool}` === ref);
  if (exact) return exact;
  const bare = tools.filter((t) => t.tool === ref);
  if (bare.length === 1) return bare[0]!;
  if (bare.length > 1)
    throw new UsageError(
      `More than one server has a tool "${ref}": name one of ${bare.map((t) => `${t.server}.${t.tool}`).join(', ')}.`,
    );
  // Not there (a server down or not configured, a typo): the local path says which, with the
  // configured names and the nearest ones.
  throw new GatewayUnreachable(`the gateway has no tool "${ref}"`);
}
