import type { CallToolResult } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import { isModelVisible } from '../../core/mcp-apps.js';
import type { Deferral } from '../../core/server-config.js';
import type { CatalogSnapshot, CatalogTool } from '../../host/catalog/catalog.js';
import { createToolIndex, type ServerInfo, type ToolIndex } from '../search/tool-index.js';
import { isLoaded } from '../tool-set.js';
import type { MetaContext } from './context.js';
import { errorOutcome, jsonOutcome, stringArg } from './outcome.js';
import { searchEmbeddingsOf } from './search-embeddings.js';

/**
 * `search_tools`: ranked search over every tool an agent may see, loaded or not. Each hit
 * says why it matched and whether it is loaded, and the answer says which groups to activate
 * for the rest. An empty or weak answer says so, and how to search instead.
 */

/** A best hit that covers less of the query than this is a weak answer. */
const WEAK_COVERAGE = 0.5;

/**
 * Instructions longer than this are cut before indexing: they only lend their words to the
 * ranking, and a server must not make every search slow by sending a book.
 */
const MAX_SELF_DESCRIPTION = 8_000;

// One index per catalog snapshot and per what the servers say of themselves: building it is
// the costly part, snapshots are immutable, and a reconnect may bring new instructions.
const indexes = new WeakMap<CatalogSnapshot, { readonly key: string; readonly index: ToolIndex }>();

/**
 * What each server of `catalog` says about itself, for the index: the configuration's title
 * and description (the operator's words) and, from the live connection, the server's own
 * `serverInfo` title and description and its `instructions`.
 */
export function serverInfoOf(context: MetaContext, catalog: CatalogSnapshot): ServerInfo[] {
  return [...new Set(catalog.tools.map((t) => t.server))].map((name) => {
    const config = context.host.serverConfig(name);
    const { serverInfo: own, instructions: said } = context.host.upstreamProtocol(name);
    const title = config?.title ?? own?.title;
    const description = [config?.description, own?.description].filter(Boolean).join(' ');
    const instructions = said?.slice(0, MAX_SELF_DESCRIPTION);
    return {
      name,
      ...(title !== undefined && { title }),
      ...(description !== '' && { description: description.slice(0, MAX_SELF_DESCRIPTION) }),
      ...(instructions && { instructions }),
    };
  });
}

/** The tools a model may find: an MCP App's own tools (visibility without "model") are not. */
function searchable(catalog: CatalogSnapshot): readonly CatalogTool[] {
  return catalog.tools.filter((t) => isModelVisible(t.tool));
}

function indexOf(
  context: MetaContext,
  catalog: CatalogSnapshot,
  embeddings: readonly (Float32Array | undefined)[] | undefined,
): ToolIndex {
  const servers = serverInfoOf(context, catalog);
  // Embeddings arrive over time: an index is rebuilt when more of them are known.
  const known = embeddings?.filter(Boolean).length ?? 0;
  const key = `${known}\u0000${JSON.stringify(servers)}`;
  const cached = indexes.get(catalog);
  if (cached?.key === key) return cached.index;
  const index = createToolIndex(searchable(catalog), {
    servers,
    ...(embeddings && known > 0 && { embeddings }),
  });
  indexes.set(catalog, { key, index });
  return index;
}

/** What to tell the model when the answer is empty or weak: how to search instead. */
function hintFor(servers: readonly string[], hits: readonly { coverage: number }[]): string | undefined {
  const best = hits[0]?.coverage ?? 0;
  if (hits.length > 0 && best >= WEAK_COVERAGE) return undefined;
  const how =
    `describe the action in the words a tool name would use ("read file", "create issue"), ` +
    `name a server (${servers.join(', ')}), or call activate_tools with a server's name to see all its tools.`;
  return hits.length === 0 ? `No tool matched. Try again: ${how}` : `Only weak matches. To do better, ${how}`;
}

export async function runSearchTool(
  context: MetaContext,
  args: Record<string, unknown>,
  granted: ReadonlySet<string>,
  deferralOf: (server: string) => Deferral,
): Promise<CallToolResult> {
  const query = stringArg(args, 'query');
  if (!query) return errorOutcome('"query" is required: describe what the tool should do.');
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  const servers = context.visibleServers();
  if (servers.length === 0) return jsonOutcome({ tools: [], note: 'No MCP servers are configured.' });
  try {
    const catalog = context.host.catalog();
    // With a provider, the query is embedded (and any tool not yet) within its deadline;
    // whatever fails or is late, the search still answers, ranked offline, and says why.
    const provider = searchEmbeddingsOf(context.host);
    const embedded =
      provider && query.trim() !== ''
        ? await provider.forSearch(query, searchable(catalog), context.signal)
        : undefined;
    const hits = indexOf(context, catalog, embedded?.tools).search(query, {
      servers,
      ...(limit !== undefined && { limit }),
      ...(embedded?.query && { queryEmbedding: embedded.query }),
    });
    const tools = hits.map(({ score: _score, coverage: _coverage, ...hit }) => ({
      ...hit,
      loaded: isLoaded(hit, deferralOf(hit.server), granted),
    }));
    const toLoad = [...new Set(tools.filter((t) => !t.loaded).map((t) => t.server))];
    const hint = hintFor(servers, hits);
    const load =
      toLoad.length > 0
        ? `To use a tool that is not loaded, call activate_tools with {"groups": ${JSON.stringify(toLoad)}}.`
        : undefined;
    const offline =
      embedded?.problem !== undefined
        ? `Embeddings not used${embedded.query ? ' for every tool' : ''} (${embedded.problem}); ranked by words and meaning tables.`
        : undefined;
    const note = [hint, load, offline].filter(Boolean).join(' ');
    return jsonOutcome({ tools, ...(note !== '' && { note }) });
  } catch (error) {
    return errorOutcome(`search_tools failed: ${describeError(error)}`);
  }
}
