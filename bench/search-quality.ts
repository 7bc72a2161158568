/**
 * Measures `search_tools` honestly: the labelled set of test/fixtures/catalogs/
 * search-queries-real.json over the fifteen real servers' tool lists, reported per half
 * (tune, held-out) and per kind, as top-1, top-3 and mean reciprocal rank; and the time a
 * query takes on a 10,000-tool catalog and an index takes to build for 1,000 tools.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/client';
import { createToolIndex, type ToolIndex, type ToolIndexEntry } from '../src/agents/search/tool-index.js';
import { neighboursOf } from '../src/agents/search/word-neighbours.js';
import { relationsOf } from '../src/agents/search/word-relations.js';
import { wordVectors } from '../src/agents/search/word-vectors.js';
import { buildCatalog, type CatalogSnapshot, type ServerOffer } from '../src/host/catalog/catalog.js';
import { fmt, median, percentile } from './stats.js';
import { syntheticCatalog } from './synthetic-catalog.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One server of a snapshot fixture. */
export interface SnapshotServer {
  readonly package: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly instructions?: string;
  readonly tools: Tool[];
}

/** One labelled query: `expected` holds `server/tool` names, any one of them right. */
export interface LabelledQuery {
  readonly query: string;
  readonly kind: 'easy' | 'paraphrase' | 'ambiguous' | 'parameter';
  readonly half: 'tune' | 'held-out';
  readonly expected: readonly string[];
}

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(root, 'test/fixtures/catalogs', name), 'utf8')) as T;
}

/** The fifteen real servers: the published ones and the ones snapshotted from npm. */
export function realServers(): Record<string, SnapshotServer> {
  return {
    ...fixture<{ servers: Record<string, SnapshotServer> }>('published-tools.json').servers,
    ...fixture<{ servers: Record<string, SnapshotServer> }>('npm-server-tools.json').servers,
  };
}

export function realOffers(servers = realServers()): ServerOffer[] {
  return Object.entries(servers).map(([server, { tools }]) => ({ server, tools }));
}

/**
 * What the index knows of each server, as `search_tools` gives it on the live path: the
 * server's own title, description and instructions (search-tool.ts).
 */
export function serverInfo(servers = realServers()) {
  return Object.entries(servers).map(([name, s]) => ({
    name,
    ...(s.title !== undefined && { title: s.title }),
    ...(s.description !== undefined && { description: s.description }),
    ...(s.instructions !== undefined && { instructions: s.instructions }),
  }));
}

export function labelledQueries(): LabelledQuery[] {
  return fixture<{ queries: LabelledQuery[] }>('search-queries-real.json').queries;
}

/** One query of the fresh set: held out as a whole, so it has no half. */
export type FreshQuery = Omit<LabelledQuery, 'half'>;

/**
 * The servers of the fresh set: the fifteen real ones and six more snapshotted from npm
 * (fresh-server-tools.json) that no tuning ever saw.
 */
export function freshServers(): Record<string, SnapshotServer> {
  return {
    ...realServers(),
    ...fixture<{ servers: Record<string, SnapshotServer> }>('fresh-server-tools.json').servers,
  };
}

/** The fresh labelled set: a second held-out set, written before the ranker ran on it. */
export function freshQueries(): FreshQuery[] {
  return fixture<{ queries: FreshQuery[] }>('search-queries-fresh.json').queries;
}

/** Rank (0-based) of the first right tool among the top 10, or -1. */
export function rankOf(index: ToolIndex, catalog: CatalogSnapshot, q: LabelledQuery): number {
  const byName = new Map(catalog.tools.map((t) => [t.name, `${t.server}/${t.tool.name}`]));
  return index.search(q.query, { limit: 10 }).findIndex((h) => q.expected.includes(byName.get(h.name) ?? ''));
}

interface Rates {
  readonly n: number;
  readonly top1: number;
  readonly top3: number;
  readonly mrr: number;
}

function rates(ranks: readonly number[]): Rates {
  const n = ranks.length;
  return {
    n,
    top1: ranks.filter((r) => r === 0).length / n,
    top3: ranks.filter((r) => r >= 0 && r < 3).length / n,
    mrr: ranks.reduce((sum, r) => sum + (r >= 0 ? 1 / (r + 1) : 0), 0) / n,
  };
}

const line = (label: string, r: Rates) =>
  `  ${label.padEnd(22)} n=${String(r.n).padStart(3)}  top-1 ${fmt(100 * r.top1, 1).padStart(5)}%  top-3 ${fmt(100 * r.top3, 1).padStart(5)}%  MRR ${fmt(r.mrr, 3)}`;

/** Prints the figures of each half and kind; `misses` also lists the tune half's misses. */
export function printSearchQuality(options: { readonly misses?: boolean } = {}): void {
  const servers = realServers();
  const catalog = buildCatalog(realOffers(servers));
  const index = createToolIndex(catalog.tools, { servers: serverInfo(servers) });
  const queries = labelledQueries();
  console.log(
    `\nsearch_tools on ${catalog.tools.length} tools of ${Object.keys(servers).length} real servers, ${queries.length} labelled queries (targets on held-out: top-3 ≥ 90%, top-1 ≥ 75%)`,
  );
  for (const half of ['tune', 'held-out'] as const) {
    const subset = queries.filter((q) => q.half === half);
    const ranks = subset.map((q) => rankOf(index, catalog, q));
    console.log(line(half, rates(ranks)));
    for (const kind of ['easy', 'paraphrase', 'ambiguous', 'parameter'] as const) {
      const of = subset.map((q, i) => [q, ranks[i]!] as const).filter(([q]) => q.kind === kind);
      console.log(line(`  ${kind}`, rates(of.map(([, r]) => r))));
    }
    if (options.misses && half === 'tune')
      for (const [i, q] of subset.entries())
        if (ranks[i]! < 0 || ranks[i]! >= 3)
          console.log(
            `    miss: "${q.query}" → ${index
              .search(q.query, { limit: 3 })
              .map((h) => h.name)
              .join(', ')} (want ${q.expected.join(' ')})`,
          );
  }
}

/**
 * Prints the fresh set's figures, overall and per kind, over the twenty-one servers. Never
 * lists its misses: the set is held out as a whole, and nothing may be tuned on it.
 */
export function printFreshQuality(): void {
  const servers = freshServers();
  const catalog = buildCatalog(realOffers(servers));
  const index = createToolIndex(catalog.tools, { servers: serverInfo(servers) });
  const queries = freshQueries();
  console.log(
    `\nsearch_tools on the fresh set: ${catalog.tools.length} tools of ${Object.keys(servers).length} real servers, ${queries.length} queries never tuned on`,
  );
  const ranks = queries.map((q) => rankOf(index, catalog, { ...q, half: 'held-out' }));
  console.log(line('fresh', rates(ranks)));
  for (const kind of ['easy', 'paraphrase', 'ambiguous', 'parameter'] as const) {
    const of = queries.map((q, i) => [q, ranks[i]!] as const).filter(([q]) => q.kind === kind);
    console.log(line(`  ${kind}`, rates(of.map(([, r]) => r))));
  }
}

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The time the tables of meaning (word neighbours, WordNet relations, word vectors) take to
 * load; each loads once per process, on the first query or index that needs it, so call
 * this before any search.
 */
export function timeNeighbourTableLoad(): number {
  const start = now();
  neighboursOf('tweet');
  relationsOf('tweet');
  wordVectors();
  return now() - start;
}

/**
 * Prints the build time for 1,000 tools (the first of seven builds of one catalog,
 * and the median of seven) and p50/p95 per query on 10,000 tools.
 */
export function printSearchTiming(loadMs: number): void {
  const thousand = buildCatalog(syntheticCatalog({ tools: 1000, seed: 3 })).tools;
  const builds: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = now();
    createToolIndex(thousand);
    builds.push(now() - start);
  }
  const real = buildCatalog(realOffers()).tools;
  const synthetic = buildCatalog(syntheticCatalog({ tools: 10_000 - real.length, seed: 7 })).tools;
  const big: ToolIndexEntry[] = [...real, ...synthetic];
  const index = createToolIndex(big, { servers: serverInfo() });
  const queries = labelledQueries().map((q) => q.query);
  for (const q of queries) index.search(q); // warm-up: JIT, caches
  const samples: number[] = [];
  for (let round = 0; round < 3; round++)
    for (const q of queries) {
      const start = now();
      index.search(q);
      samples.push(now() - start);
    }
  console.log(
    `\nsearch_tools timing on ${index.size} tools: p50 ${fmt(median(samples), 3)} ms, p95 ${fmt(percentile(samples, 95), 3)} ms per query (target p50 ≤ 2 ms)`,
  );
  console.log(
    `  index build for 1,000 tools: first ${fmt(builds[0]!, 1)} ms, median of 7 ${fmt(median(builds), 1)} ms (target ≤ 200 ms); tables of meaning loaded once in ${fmt(loadMs, 1)} ms`,
  );
}
