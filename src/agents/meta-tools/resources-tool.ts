import type { CallToolResult, ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import { type MetaContext, pickServer } from './context.js';
import { CONTENT_OUTPUT_CAP, cutNote, cutToBytes, errorOutcome, jsonOutcome, stringArg } from './outcome.js';
import { judgeFilePath, judgeListed, type ScopeVerdict } from './resource-scope.js';

/**
 * `mcp_resources`: list resources, list resource templates, or read one resource, across the
 * servers an agent may see. A read names a URI the server listed or one of its templates
 * fits, and a `file:` URI must lie in the server's workspace roots (resource-scope.ts). What
 * a read returns is capped (256 KiB of text by default) with a note saying what was cut, so
 * one large file cannot flood the model's context.
 */

export const RESOURCE_OUTPUT_CAP = CONTENT_OUTPUT_CAP;

export async function runResourcesTool(
  context: MetaContext,
  args: Record<string, unknown>,
  options: { readonly capBytes?: number } = {},
): Promise<CallToolResult> {
  const catalog = context.host.catalog();
  const visible = new Set(context.visibleServers());
  const named = stringArg(args, 'server');
  const only = (server: string) => visible.has(server) && (named === undefined || named === server);
  if (named !== undefined && !visible.has(named)) {
    return errorOutcome(`No server named "${named}". Servers: ${[...visible].join(', ') || '(none)'}.`);
  }
  switch (args.action) {
    case 'list':
      return jsonOutcome({
        resources: catalog.resources
          .filter((r) => only(r.server))
          .map(({ server, item }) => ({
            server,
            uri: item.uri,
            name: item.name,
            ...(item.mimeType !== undefined && { mimeType: item.mimeType }),
            ...(item.description !== undefined && { description: item.description }),
          })),
      });
    case 'templates':
      return jsonOutcome({
        templates: catalog.resourceTemplates
          .filter((r) => only(r.server))
          .map(({ server, item }) => ({
            server,
            uriTemplate: item.uriTemplate,
            name: item.name,
            ...(item.description !== undefined && { description: item.description }),
          })),
      });
    case 'read': {
      const uri = stringArg(args, 'uri');
      if (!uri) return errorOutcome('"uri" is required to read a resource; list resources to find one.');
      const exact = catalog.resources.filter((r) => r.item.uri === uri).map((r) => r.server);
      const offering = [...catalog.resources, ...catalog.resourceTemplates].map((r) => r.server);
      const pick = pickServer(context, named, exact.length > 0 ? exact : offering);
      if ('error' in pick) return errorOutcome(pick.error);
      const scope = await readScope(context, pick.server, uri);
      if (!scope.ok) return errorOutcome(`Not read: ${scope.reason}.`);
      try {
        const result = await context.host.readResource(pick.server, uri, {
          ...(context.signal && { signal: context.signal }),
        });
        return capped(asToolResult(result), options.capBytes ?? RESOURCE_OUTPUT_CAP);
      } catch (error) {
        return errorOutcome(`Reading ${uri} from ${pick.server} failed: ${describeError(error)}`);
      }
    }
    default:
      return errorOutcome('"action" must be "list", "templates" or "read".');
  }
}

/** Whether an agent may read `uri` from `server` (resource-scope.ts says why it asks). */
async function readScope(context: MetaContext, server: string, uri: string): Promise<ScopeVerdict> {
  const catalog = context.host.catalog();
  const listed = judgeListed(uri, {
    listed: catalog.resources.filter((r) => r.server === server).map((r) => r.item.uri),
    templates: catalog.resourceTemplates.filter((r) => r.server === server).map((r) => r.item.uriTemplate),
  });
  if (!listed.ok) return listed;
  return judgeFilePath(uri, context.host.rootsOf(server));
}

/** A read result as tool content: each part an embedded resource, so media handling applies. */
function asToolResult(result: ReadResourceResult): CallToolResult {
  const content: ContentBlock[] = result.contents.map((resource) => ({ type: 'resource', resource }));
  return { content };
}

/** Cuts text parts so the total stays under `cap` bytes, and says so. */
export function capped(result: CallToolResult, cap: number): CallToolResult {
  let left = cap;
  let cut = 0;
  const content: ContentBlock[] = [];
  for (const block of result.content) {
    const text =
      block.type === 'text'
        ? block.text
        : block.type === 'resource' && 'text' in block.resource
          ? block.resource.text
          : undefined;
    if (text === undefined) {
      content.push(block);
      continue;
    }
    const bytes = Buffer.byteLength(text);
    if (bytes <= left) {
      content.push(block);
      left -= bytes;
      continue;
    }
    const kept = cutToBytes(text, left);
    cut += bytes - Buffer.byteLength(kept);
    left = 0;
    if (kept.length > 0) content.push(withText(block, kept));
  }
  if (cut === 0) return result;
  content.push({
    type: 'text',
    text: cutNote(cut, cap),
  });
  return { ...result, content };
}

function withText(block: ContentBlock, text: string): ContentBlock {
  if (block.type === 'text') return { ...block, text };
  if (block.type === 'resource') return { ...block, resource: { ...block.resource, text } };
  return block;
}
