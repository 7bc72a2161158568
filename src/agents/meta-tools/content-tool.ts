import type { CallToolResult } from '@modelcontextprotocol/client';
import type { AgentTool } from '../tool-set.js';
import type { MetaContext } from './context.js';
import { runPromptsTool } from './prompts-tool.js';
import { runResourcesTool } from './resources-tool.js';

/**
 * `mcp_content`: the resources and prompts of the servers an agent may see, through one
 * meta-tool rather than two, since each meta-tool's definition is paid in every request. It
 * is offered only when some server offers resources or prompts, and declares only what
 * exists. The arguments say what is wanted, so there is no `action` to spell: a `uri` reads
 * that resource, a `prompt` gets that prompt (with `arguments`), neither lists resources,
 * resource templates and prompts (of `server`, when named). The work is done by
 * resources-tool.ts and prompts-tool.ts.
 */

export const MCP_CONTENT_NAME = 'mcp_content';

/** What the catalog offers besides tools. */
export interface ContentOffers {
  readonly resources: boolean;
  readonly prompts: boolean;
}

/** The definition for what is offered, or `undefined` when nothing is. */
export function contentToolDefinition(offers: ContentOffers): AgentTool | undefined {
  if (!offers.resources && !offers.prompts) return undefined;
  const description =
    offers.resources && offers.prompts
      ? 'List MCP resources and prompts; read a uri; get a prompt.'
      : offers.resources
        ? 'List MCP resources; read a uri.'
        : 'List MCP prompts; get a prompt.';
  return {
    name: MCP_CONTENT_NAME,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        server: { type: 'string' },
        ...(offers.resources && { uri: { type: 'string' } }),
        ...(offers.prompts && { prompt: { type: 'string' }, arguments: { type: 'object' } }),
      },
    },
  };
}

/** Runs `mcp_content` with the model's arguments. */
export async function runContentTool(
  context: MetaContext,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const server = typeof args.server === 'string' && args.server !== '' ? { server: args.server } : {};
  if (typeof args.uri === 'string' && args.uri !== '')
    return runResourcesTool(context, { ...server, action: 'read', uri: args.uri });
  if (typeof args.prompt === 'string' && args.prompt !== '')
    return runPromptsTool(context, {
      ...server,
      action: 'get',
      name: args.prompt,
      arguments: args.arguments,
    });
  const catalog = context.host.catalog();
  const parts: CallToolResult[] = [];
  if (catalog.resources.length > 0 || catalog.resourceTemplates.length > 0) {
    parts.push(await runResourcesTool(context, { ...server, action: 'list' }));
    if (catalog.resourceTemplates.length > 0)
      parts.push(await runResourcesTool(context, { ...server, action: 'templates' }));
  }
  if (catalog.prompts.length > 0) parts.push(await runPromptsTool(context, { ...server, action: 'list' }));
  // A failure (an unknown server) is the answer; otherwise the lists, merged into one object.
  const failed = parts.find((p) => p.isError);
  if (failed) return failed;
  const merged = Object.assign({}, ...parts.map((p) => p.structuredContent ?? {})) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(merged) }], structuredContent: merged };
}
