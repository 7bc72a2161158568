/**
 * The system-prompt block that tells a model which MCP servers exist, which are loaded, and
 * how to load the rest. A system prompt carries the tag `<!-- MCP_LIST -->` where the block
 * goes; the block is rendered anew each round. Pure.
 */

export const MCP_LIST_TAG = '<!-- MCP_LIST -->';

/** One server as the block shows it. */
export interface ListedServer {
  readonly name: string;
  readonly description?: string;
  /** Its tools are in the model's tool set now (eager, or granted). */
  readonly active: boolean;
  readonly tools: number;
  /** Not connected now: shown so the model does not wait on it. */
  readonly unavailable?: boolean;
}

const MAX_DESCRIPTION = 120;

function line(server: ListedServer): string {
  const description = server.description?.replace(/\s+/g, ' ').trim();
  const about = description
    ? ` — ${description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description}`
    : '';
  const state = server.unavailable ? ', not connected' : '';
  return `- ${server.name} (${server.tools} tool${server.tools === 1 ? '' : 's'}${state})${about}`;
}

/** The block for `servers`; `configAvailable` mentions the server-management group. */
export function renderMcpList(
  servers: readonly ListedServer[],
  options: { configActive?: boolean } = {},
): string {
  const active = servers.filter((s) => s.active);
  const available = servers.filter((s) => !s.active);
  const parts = ['## MCP servers'];
  if (active.length > 0) parts.push('Loaded (their tools are available now):', ...active.map(line));
  if (available.length > 0) {
    parts.push(
      'Available (call activate_tools with their names to load their tools; search_tools finds a tool by what it does):',
      ...available.map(line),
    );
  }
  if (servers.length === 0) parts.push('No MCP servers are configured.');
  if (!options.configActive)
    parts.push('Server management (register, remove, toggle servers): the group "config".');
  return parts.join('\n');
}

/** `template` with its MCP_LIST tag replaced by `block`; a template without the tag is returned as is. */
export function injectMcpList(template: string, block: string): string {
  return template.split(MCP_LIST_TAG).join(block);
}
