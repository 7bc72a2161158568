import { SwitchboardError } from '../core/errors.js';
import type { CatalogSnapshot } from './catalog/catalog.js';
import { qualifiedToolName } from './catalog/tool-names.js';
import { serverAway } from './host-errors.js';
import type { ServerState } from './supervisor/supervisor.js';

/**
 * Why a catalog name is not served: a name the catalog does not hold is either truly unknown,
 * or its server is reconnecting or starting and serves it again soon. A client told "unknown
 * tool" gives up; one told `UPSTREAM_RECONNECTING` retries. Pure: the snapshot (whose `away`
 * part holds what reconnecting servers offered when last connected) and each server's state in.
 */

/** The error for a call of `name`, which `snapshot` does not serve. */
export function missingTool(
  snapshot: CatalogSnapshot,
  name: string,
  servers: ReadonlyMap<string, ServerState>,
): SwitchboardError {
  const away = snapshot.away?.lookup(name);
  if (away) return serverAway(away.server, servers.get(away.server), `tool "${away.tool.name}"`);
  // A server still starting has never been listed: its tools are known only by their prefix.
  for (const [server, state] of servers) {
    if (state === 'connecting' && name.startsWith(qualifiedToolName(server, ''))) {
      return serverAway(server, state, `tool "${name}"`);
    }
  }
  return new SwitchboardError(
    'NOT_FOUND',
    `No tool "${name}" in the catalog. List the tools to see what is offered.`,
    {
      details: { tool: name },
    },
  );
}
