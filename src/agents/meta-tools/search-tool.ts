import type { CallToolResult } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import type { Deferral } from '../../core/server-config.js';
import type { CatalogSnapshot } from '../../host/catalog/catalog.js';
import { createToolIndex, type ToolIndex } from '../search/tool-index.js';
import { isLoaded } from '../tool-set.js';
import type { MetaContext } from './context.js';
import { errorOutcome, jsonOutcome, stringArg } from './outcome.js';

/**
 * `search_tools`: ranked search over every tool an agent may see, loaded or not. Each hit
 * says whether it is loaded, and the answer says which groups to activate for the rest.
 */

// One index per catalog snapshot: building it is the costly part, and snapshots are immutable.
const indexes = new WeakMap<CatalogSnapshot, ToolIndex>();

function indexOf(catalog: CatalogSnapshot): ToolIndex {
  let index = indexes.get(catalog);
  if (!index) {
    index = createToolIndex(catalog.tools);
    indexes.set(catalog, index);
  }
  return index;
}

export function runSearchTool(
  context: MetaContext,
  args: Record<string, unknown>,
  granted: ReadonlySet<string>,
  deferralOf: (server: string) => Deferral,
): CallToolResult {
  const query = stringArg(args, 'query');
  if (!query) return errorOutcome('"query" is required: describe what the tool should do.');
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  const servers = context.visibleServers();
  if (servers.length === 0) return jsonOutcome({ tools: [], note: 'No MCP servers are configured.' });
  try {
    const hits = indexOf(context.host.catalog()).search(query, {
      servers,
      ...(limit !== undefined && { limit }),
    });
    const tools = hits.map(({ score: _score, ...hit }) => ({
      ...hit,
      loaded: isLoaded(hit, deferralOf(hit.server), granted),
    }));
    const toLoad = [...new Set(tools.filter((t) => !t.loaded).map((t) => t.server))];
    return jsonOutcome({
      tools,
      ...(toLoad.length > 0 && {
        note: `To use a tool that is not loaded, call activate_tools with {"groups": ${JSON.stringify(toLoad)}}.`,
      }),
    });
  } catch (error) {
    return errorOutcome(`search_tools failed: ${describeError(error)}`);
  }
}
