import { SwitchboardError, type SwitchboardErrorCode } from '../../core/errors.js';
import { buildPostings } from './postings.js';
import { queryConcepts } from './query-concepts.js';
import { tokenize } from './tokenize.js';
import { type SearchableTool, toolFields } from './tool-fields.js';
import { firstSentence, paramSummary } from './tool-summary.js';

/**
 * Ranked search over a tool catalog, behind the `search_tools` meta-tool: with lazy loading a
 * model first sees only meta-tools and finds the rest by describing what it needs. Pure and
 * in memory: build once per catalog snapshot, query many times.
 *
 * Ranking is BM25F (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009): term frequencies are weighted per field — tool name, then title, then
 * parameter names, then description, then parameter descriptions — and length-normalised per
 * field before one saturation, so a word in a short name outweighs the same word in a long
 * description without a long description drowning everything else (postings.ts). A query
 * is read as concepts — each word as written, through a synonym, or by prefix
 * (query-concepts.ts) — and a tool earns the best of its matches per concept. Then two
 * bonuses: a query that names a tool exactly (`read_file`, or "read file") puts it first,
 * and a query that names a server ("github issues") favours that server's tools.
 */

/** One tool to index: its catalog name, its server and its definition. A `CatalogTool` fits. */
export interface ToolIndexEntry {
  readonly name: string;
  readonly server: string;
  readonly tool: SearchableTool;
}

/** What a server says about itself (its `serverInfo` and `instructions`), for the index. */
export interface ServerInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly instructions?: string;
}

/** Options of {@link createToolIndex}. */
export interface ToolIndexOptions {
  /** What servers say about themselves; their words help find their tools. */
  readonly servers?: readonly ServerInfo[];
}

/** Options of {@link ToolIndex.search}. */
export interface ToolSearchOptions {
  /** How many hits at most: default {@link DEFAULT_SEARCH_LIMIT}, clamped to 1…{@link MAX_SEARCH_LIMIT}. */
  readonly limit?: number;
  /** Only tools of these servers; absent or empty means every server. */
  readonly servers?: readonly string[];
}

/** One result: compact, so a list of them costs a model few tokens. */
export interface ToolSearchHit {
  /** The catalog name, to call or describe the tool with. */
  readonly name: string;
  readonly server: string;
  /** First sentence of the description, at most 160 characters. */
  readonly description: string;
  /** Top-level parameters, `"path*, head?, tail?"`: `*` required, `?` optional. */
  readonly params: string;
  /** Relevance, higher is better; comparable only within one search. */
  readonly score: number;
}

/** A built index. */
export interface ToolIndex {
  /** Number of tools indexed. */
  readonly size: number;
  /**
   * The tools that best match `query`, best first (ties by name). A query of only stop
   * words or unknown words returns `[]`; an empty or blank query throws.
   */
  search(query: string, options?: ToolSearchOptions): ToolSearchHit[];
}

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 25;

const INVALID_QUERY: SwitchboardErrorCode = 'INVALID_ARGUMENT';

/** BM25 term-frequency saturation. */
const K1 = 1.2;
const EXACT_NAME_BOOST = 2;
const SERVER_BOOST = 0.5;
const SERVER_FLOOR = 0.5;

/** What the exact-name bonus compares a query with, per tool. */
interface Doc {
  readonly entry: ToolIndexEntry;
  /** The tool's own name as its terms, joined by spaces ("read fil"). */
  readonly nameTerms: string;
  /** The tool's own name and its catalog name, lowercased. */
  readonly rawName: string;
  readonly catalogName: string;
}

interface Ranked {
  readonly doc: number;
  readonly value: number;
}

/** Builds the index of `entries`. Time and memory are linear in the catalog's text. */
export function createToolIndex(
  entries: readonly ToolIndexEntry[],
  _options: ToolIndexOptions = {},
): ToolIndex {
  const fields = entries.map((entry) => toolFields(entry.tool));
  const postings = buildPostings(fields);
  const docs: Doc[] = entries.map((entry, i) => ({
    entry,
    nameTerms: tokenize(fields[i]!.name).join(' '),
    rawName: entry.tool.name.toLowerCase(),
    catalogName: entry.name.toLowerCase(),
  }));
  const serverTerms = new Map<string, readonly string[]>();
  for (const { server } of entries)
    if (!serverTerms.has(server)) serverTerms.set(server, [...new Set(tokenize(server))]);

  const score = new Float64Array(docs.length);
  const best = new Float64Array(docs.length);
  // Scratch lists reused by every search: a large catalog touches thousands of tools.
  const touched: number[] = [];
  const hitHere: number[] = [];

  const search = (query: string, options: ToolSearchOptions = {}): ToolSearchHit[] => {
    if (typeof query !== 'string' || query.trim() === '')
      throw new SwitchboardError(
        INVALID_QUERY,
        'search_tools needs a query: describe the tool you are looking for in a few words, ' +
          'e.g. "read a file".',
        { details: { argument: 'query' } },
      );
    const limit = clampLimit(options.limit);
    const allowed = options.servers && options.servers.length > 0 ? new Set(options.servers) : undefined;
    const terms = tokenize(query);

    score.fill(0);
    touched.length = 0;
    for (const concept of queryConcepts(query, postings)) {
      hitHere.length = 0;
      for (const [expanded, weight] of concept) {
        const posting = postings.get(expanded)!;
        for (let i = 0; i < posting.docs.length; i++) {
          const doc = posting.docs[i]!;
          const tf = posting.tf[i]!;
          const value = (weight * posting.idf * tf) / (tf + K1);
          if (best[doc] === 0) hitHere.push(doc);
          if (value > best[doc]!) best[doc] = value;
        }
      }
      for (const doc of hitHere) {
        if (score[doc] === 0) touched.push(doc);
        score[doc]! += best[doc]!;
        best[doc] = 0;
      }
    }

    // A server named in the query lifts its tools, even those that matched nothing else.
    const termSet = new Set(terms);
    const serverShare = new Map<string, number>();
    for (const [server, words] of serverTerms) {
      const share = words.length === 0 ? 0 : words.filter((w) => termSet.has(w)).length / words.length;
      if (share > 0) serverShare.set(server, share);
    }
    if (serverShare.size > 0)
      for (let doc = 0; doc < docs.length; doc++)
        if (serverShare.has(docs[doc]!.entry.server) && score[doc] === 0) touched.push(doc);

    const queryTerms = terms.join(' ');
    const queryWords = new Set(
      query
        .toLowerCase()
        .split(/[\s,;"'`()]+/)
        .filter(Boolean),
    );
    // Only the best `limit` are kept, in order: sorting every matching tool of a large
    // catalog would cost more than scoring them.
    const top: Ranked[] = [];
    const before = (value: number, doc: number, other: Ranked) =>
      value > other.value || (value === other.value && docs[doc]!.entry.name < docs[other.doc]!.entry.name);
    for (const doc of touched) {
      const { entry, nameTerms, rawName, catalogName } = docs[doc]!;
      if (allowed && !allowed.has(entry.server)) continue;
      let value = score[doc]!;
      const share = serverShare.get(entry.server);
      if (share !== undefined) value = value * (1 + SERVER_BOOST * share) + SERVER_FLOOR * share;
      if (nameTerms === queryTerms || queryWords.has(rawName) || queryWords.has(catalogName))
        value *= EXACT_NAME_BOOST;
      if (value <= 0 || (top.length === limit && !before(value, doc, top[limit - 1]!))) continue;
      let at = top.length;
      while (at > 0 && before(value, doc, top[at - 1]!)) at--;
      top.splice(at, 0, { doc, value });
      if (top.length > limit) top.pop();
    }
    return top.map(({ doc, value }) => hit(docs[doc]!.entry, value));
  };

  return { size: docs.length, search };
}

function hit(entry: ToolIndexEntry, value: number): ToolSearchHit {
  return {
    name: entry.name,
    server: entry.server,
    description: firstSentence(entry.tool.description || entry.tool.title || ''),
    params: paramSummary(entry.tool.inputSchema),
    score: Math.round(value * 1000) / 1000,
  };
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
}
