import { SwitchboardError, type SwitchboardErrorCode } from '../../core/errors.js';
import { buildCatalogNeighbours } from './catalog-neighbours.js';
import { type ConceptMatch, explainMatch } from './explain.js';
import { buildPostings } from './postings.js';
import { type Concept, queryConcepts } from './query-concepts.js';
import { synonymsOf } from './synonyms.js';
import { forEachWord, termsOfWord, tokenize } from './tokenize.js';
import { type SearchableTool, toolFields } from './tool-fields.js';
import { firstSentence, paramSummary } from './tool-summary.js';
import { wordVectors } from './word-vectors.js';

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
 * (query-concepts.ts) — and a tool earns the best of its matches per concept. Then three
 * bonuses: a query that names a tool exactly (`read_file`, or "read file") puts it first, a
 * query that names a server ("github issues") favours that server's tools, and a query whose
 * words the server uses about itself (its title, description or instructions) lifts that
 * server's matching tools a little. Each hit says why it matched (explain.ts) and how much
 * of the query it covered, so a caller can tell a weak answer from a good one.
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
  /** Whether query words reach catalog words near them by word vector; default true. */
  readonly meaning?: boolean;
  /**
   * Per entry (same order), its definition's embedding from an embedding provider, unit
   * length; undefined for an entry that has none. With a query embedding at search time, a
   * second ranked list by cosine is fused with the word ranking (reciprocal rank fusion).
   */
  readonly embeddings?: readonly (Float32Array | undefined)[];
}

/** Options of {@link ToolIndex.search}. */
export interface ToolSearchOptions {
  /** How many hits at most: default {@link DEFAULT_SEARCH_LIMIT}, clamped to 1…{@link MAX_SEARCH_LIMIT}. */
  readonly limit?: number;
  /** Only tools of these servers; absent or empty means every server. */
  readonly servers?: readonly string[];
  /** The query's embedding (unit length) from the provider that embedded the tools. */
  readonly queryEmbedding?: Float32Array;
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
  /** Why it matched, briefly: the tool's words that matched and where (explain.ts). */
  readonly why: string;
  /** Relevance, higher is better; comparable only within one search. */
  readonly score: number;
  /** Share of the query's concepts the tool matched, 0…1 (a server's name counts as one). */
  readonly coverage: number;
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
const SERVER_FLOOR = 2;
/** Lift per share of the query's concepts a server's own words match. */
const SERVER_ABOUT_BOOST = 0.3;
/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a tool earns
 * 1 / (RRF_K + rank) from each list it is in, among each list's first RRF_DEPTH.
 */
const RRF_K = 60;
const RRF_DEPTH = 50;
/** An embedding-ranked hit within this rank says so in its `why`. */
const EMBEDDING_WHY_RANK = 5;

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
  options: ToolIndexOptions = {},
): ToolIndex {
  const fields = entries.map((entry) => toolFields(entry.tool));
  const postings = buildPostings(fields);
  const near =
    options.meaning === false ? undefined : buildCatalogNeighbours(postings.terms(), wordVectors());
  const docs: Doc[] = entries.map((entry, i) => ({
    entry,
    nameTerms: tokenize(fields[i]!.name).join(' '),
    rawName: entry.tool.name.toLowerCase(),
    catalogName: entry.name.toLowerCase(),
  }));
  const serverTerms = new Map<string, readonly string[]>();
  for (const { server } of entries)
    if (!serverTerms.has(server)) serverTerms.set(server, [...new Set(tokenize(server))]);
  const serverWords = new Set([...serverTerms.values()].flat());
  const isServerTerm = (term: string) => serverWords.has(term);
  const serverAbout = new Map<string, ReadonlySet<string>>();
  for (const info of options.servers ?? []) {
    const text = [info.title, info.description, info.instructions].filter(Boolean).join(' ');
    if (text !== '' && serverTerms.has(info.name)) serverAbout.set(info.name, new Set(tokenize(text)));
  }

  const score = new Float64Array(docs.length);
  const best = new Float64Array(docs.length);
  /** Per tool, how many of the query's concepts it matched. */
  const matched = new Uint16Array(docs.length);
  const lexical = new Float64Array(docs.length);
  const embeddingRank = new Int32Array(docs.length);
  // Scratch lists reused by every search: a large catalog touches thousands of tools.
  const touched: number[] = [];
  const hitHere: number[] = [];

  const search = (query: string, searchOptions: ToolSearchOptions = {}): ToolSearchHit[] => {
    if (typeof query !== 'string' || query.trim() === '')
      throw new SwitchboardError(
        INVALID_QUERY,
        'search_tools needs a query: describe the tool you are looking for in a few words, ' +
          'e.g. "read a file".',
        { details: { argument: 'query' } },
      );
    const limit = clampLimit(searchOptions.limit);
    const allowed =
      searchOptions.servers && searchOptions.servers.length > 0 ? new Set(searchOptions.servers) : undefined;
    const terms = tokenize(query);

    score.fill(0);
    matched.fill(0);
    touched.length = 0;
    const concepts = queryConcepts(query, postings, { ...(near && { near }), keep: isServerTerm });
    for (const concept of concepts) {
      hitHere.length = 0;
      for (const [expanded, { weight }] of concept) {
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
        matched[doc]!++;
        best[doc] = 0;
      }
    }
    // Which servers say of themselves what the query asks: the share of the query's words
    // (or their synonyms) their own title, description or instructions use. Checked on the
    // query's words, not the catalog's, since a server may say what none of its tools do.
    const aboutShare = new Map<string, number>();
    const distinct = [...new Set(terms)];
    if (distinct.length > 0)
      for (const [server, about] of serverAbout) {
        const n = distinct.filter((t) => about.has(t) || synonymsOf(t).some((s) => about.has(s))).length;
        if (n > 0) aboutShare.set(server, n / distinct.length);
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
    // The word list: each matching tool's score with its bonuses.
    lexical.fill(0);
    for (const doc of touched) {
      const { entry, nameTerms, rawName, catalogName } = docs[doc]!;
      if (allowed && !allowed.has(entry.server)) continue;
      let value = score[doc]!;
      const share = serverShare.get(entry.server);
      if (share !== undefined) value = value * (1 + SERVER_BOOST * share) + SERVER_FLOOR * share;
      const about = aboutShare.get(entry.server);
      if (about !== undefined && score[doc]! > 0) value *= 1 + SERVER_ABOUT_BOOST * about;
      if (nameTerms === queryTerms || queryWords.has(rawName) || queryWords.has(catalogName))
        value *= EXACT_NAME_BOOST;
      lexical[doc] = value;
    }
    const queryEmbedding = searchOptions.queryEmbedding;
    embeddingRank.fill(0);
    const top =
      queryEmbedding && options.embeddings
        ? bestOf(fuse(lexical, cosines(options.embeddings, queryEmbedding, allowed), embeddingRank), limit)
        : bestOf(lexical, limit, touched);
    const words = queryWordsOf(query);
    const parts = concepts.length + (serverShare.size > 0 ? 1 : 0);
    return top.map(({ doc, value }) => {
      const { entry } = docs[doc]!;
      let why = explainMatch(fields[doc]!, matchesOf(doc, concepts), words);
      if (serverShare.has(entry.server)) why = why ? `${why}; server name` : 'server name';
      const rank = embeddingRank[doc]!;
      if (rank > 0 && rank <= EMBEDDING_WHY_RANK)
        why = why
          ? `${why}; close in meaning (#${rank} by embedding)`
          : `close in meaning (#${rank} by embedding)`;
      const covered = matched[doc]! + (serverShare.has(entry.server) ? 1 : 0);
      return hit(entry, value, why, parts === 0 ? 0 : Math.min(1, covered / parts));
    });
  };

  /** The best `limit` positive entries of `values`, in order, ties by name. */
  const bestOf = (values: Float64Array, limit: number, among?: readonly number[]): Ranked[] => {
    // Only the best `limit` are kept, in order: sorting every matching tool of a large
    // catalog would cost more than scoring them.
    const top: Ranked[] = [];
    const before = (value: number, doc: number, other: Ranked) =>
      value > other.value || (value === other.value && docs[doc]!.entry.name < docs[other.doc]!.entry.name);
    const count = among ? among.length : values.length;
    for (let i = 0; i < count; i++) {
      const doc = among ? among[i]! : i;
      const value = values[doc]!;
      if (value <= 0 || (top.length === limit && !before(value, doc, top[limit - 1]!))) continue;
      let at = top.length;
      while (at > 0 && before(value, doc, top[at - 1]!)) at--;
      top.splice(at, 0, { doc, value });
      if (top.length > limit) top.pop();
    }
    return top;
  };

  /** Cosine of each allowed tool that has an embedding with `query` (both unit length). */
  const cosines = (
    embeddings: readonly (Float32Array | undefined)[],
    query: Float32Array,
    allowed: ReadonlySet<string> | undefined,
  ): Float64Array => {
    const out = new Float64Array(docs.length);
    for (let doc = 0; doc < docs.length; doc++) {
      const v = embeddings[doc];
      if (!v || v.length !== query.length || (allowed && !allowed.has(docs[doc]!.entry.server))) continue;
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i]! * query[i]!;
      // Shifted so that every tool with an embedding ranks, however unrelated.
      out[doc] = dot + 2;
    }
    return out;
  };

  /** Reciprocal rank fusion of the word and embedding lists; records each tool's embedding rank. */
  const fuse = (words: Float64Array, meaning: Float64Array, ranks: Int32Array): Float64Array => {
    const fused = new Float64Array(docs.length);
    bestOf(words, RRF_DEPTH).forEach(({ doc }, i) => {
      fused[doc]! += 1 / (RRF_K + i + 1);
    });
    bestOf(meaning, RRF_DEPTH).forEach(({ doc }, i) => {
      fused[doc]! += 1 / (RRF_K + i + 1);
      ranks[doc] = i + 1;
    });
    return fused;
  };

  /** For each concept, the term through which `doc` earned most (as the scoring did). */
  const matchesOf = (doc: number, concepts: readonly Concept[]): ConceptMatch[] => {
    const out: ConceptMatch[] = [];
    for (const concept of concepts) {
      let bestMatch: ConceptMatch | undefined;
      for (const [term, { weight }] of concept) {
        const posting = postings.get(term)!;
        const at = indexOfDoc(posting.docs, doc);
        if (at < 0) continue;
        const tf = posting.tf[at]!;
        const value = (weight * posting.idf * tf) / (tf + K1);
        if (!bestMatch || value > bestMatch.value) bestMatch = { concept, term, value };
      }
      if (bestMatch) out.push(bestMatch);
    }
    return out;
  };

  return { size: docs.length, search };
}

function hit(entry: ToolIndexEntry, value: number, why: string, coverage: number): ToolSearchHit {
  return {
    name: entry.name,
    server: entry.server,
    description: firstSentence(entry.tool.description || entry.tool.title || ''),
    params: paramSummary(entry.tool.inputSchema),
    why,
    score: Math.round(value * 1000) / 1000,
    coverage: Math.round(coverage * 100) / 100,
  };
}

/** Query stem → the word as the query wrote it, for explanations. */
function queryWordsOf(query: string): Map<string, string> {
  const out = new Map<string, string>();
  forEachWord(query, (word) => {
    for (const term of termsOfWord(word)) if (!out.has(term)) out.set(term, word);
  });
  return out;
}

/** Position of `doc` in the ascending `docs`, or -1. */
function indexOfDoc(docs: readonly number[], doc: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = docs[mid]!;
    if (at === doc) return mid;
    if (at < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
}
