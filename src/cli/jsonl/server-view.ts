import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { ServerStatus } from '../../host/host.js';
import type { ServerState } from '../../host/supervisor/supervisor.js';

/**
 * The server list of the JSON-lines protocol: each server's name, transport, a state from a
 * small fixed set, its tools and its error. Pure: the host's status and catalog in, the lines'
 * payload out.
 */

/** The states a front-end sees. */
export const PROTOCOL_STATES = ['connecting', 'connected', 'failed', 'disabled', 'needs_auth'] as const;
export type ProtocolState = (typeof PROTOCOL_STATES)[number];

/**
 * The host's states mapped onto the protocol's. `reconnecting` (a server that dropped and is
 * being connected again, with backoff) is `connecting` to a front-end: its tools are gone until
 * it is back, and its last error comes along. The rest map one to one.
 */
export const STATE_MAP: Readonly<Record<ServerState, ProtocolState>> = {
  connecting: 'connecting',
  reconnecting: 'connecting',
  connected: 'connected',
  failed: 'failed',
  disabled: 'disabled',
  needs_auth: 'needs_auth',
};

/** One tool of a server: its own name (call it with `server` + `tool`) and its description. */
export interface ToolView {
  readonly name: string;
  readonly description: string;
}

export interface ServerView {
  readonly name: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly state: ProtocolState;
  /** Where the entry comes from: a config file's path, or how it was registered (`jsonl`, `api`, …). */
  readonly source: string;
  readonly tools: readonly ToolView[];
  /** Why the server is `failed` or `needs_auth` (or why it is reconnecting), with what to do. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * The servers in the host's order (by name), each with the tools the catalog offers from it:
 * a tool the catalog rejected (filtered, colliding, suspicious) is not offered, so not listed.
 */
export function serverViews(
  statuses: readonly ServerStatus[],
  tools: readonly CatalogTool[],
): readonly ServerView[] {
  const byServer = new Map<string, ToolView[]>();
  for (const t of tools) {
    const list = byServer.get(t.server) ?? [];
    list.push({ name: t.tool.name, description: t.tool.description ?? '' });
    byServer.set(t.server, list);
  }
  return statuses.map((s) => {
    const state = STATE_MAP[s.state];
    return {
      name: s.name,
      transport: s.transport,
      state,
      source: s.source,
      // The catalog may lag a state change by a moment; a server that is not connected offers nothing.
      tools: state === 'connected' ? (byServer.get(s.name) ?? []) : [],
      ...(s.error && { error: { code: s.error.code, message: s.error.message } }),
    };
  });
}
