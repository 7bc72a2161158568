import type { Host, ServerStatus } from '../host/host.js';

/**
 * Which upstream servers a caller sees: the one rule every surface of the gateway applies —
 * the API's server list, stream and checks, the MCP endpoint's own `switchboard://servers`
 * resources, their completions and subscriptions, and the `list_mcp` management tool. A
 * server is visible when the caller's grants reach it at all (`allows(server)`); one that is
 * not is left out of every list and answered as if it did not exist, wherever the surface has
 * a "not found" to give.
 */

/** What the rule needs of a caller: an API principal, an MCP principal, the stdio user. */
export interface ServerViewer {
  allows(server: string): boolean;
}

/** The servers `viewer` sees, in the host's order. */
export function visibleStatuses(host: Host, viewer: ServerViewer): ServerStatus[] {
  return host.servers().filter((s) => viewer.allows(s.name));
}

/** The status of `name` when `viewer` sees it; undefined when there is none or it is not visible. */
export function visibleStatus(host: Host, viewer: ServerViewer, name: string): ServerStatus | undefined {
  return viewer.allows(name) ? host.servers().find((s) => s.name === name) : undefined;
}
