import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { syntheticCatalog } from '../../../bench/synthetic-catalog.js';
import { createToolIndex } from '../../../src/agents/search/tool-index.js';
import { buildCatalog, type ServerOffer } from '../../../src/host/catalog/catalog.js';

/**
 * Search quality over real tool lists: the published reference servers' snapshot plus the
 * synthetic catalog as distractors, indexed together through the real catalog builder (so
 * the names are the names an agent sees). Every labelled query is run; the figures are
 * printed, and the right tool must be in the top 3 for at least 90 % of them.
 */

interface Snapshot {
  readonly servers: Readonly<
    Record<string, { readonly package: string; readonly version: string; readonly tools: Tool[] }>
  >;
}
interface LabelledQuery {
  readonly query: string;
  readonly catalog: 'published' | 'synthetic';
  readonly expected: readonly string[];
}

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/catalogs/${name}`, import.meta.url), 'utf8'));
const snapshot: Snapshot = fixture('published-tools.json');
const queries: readonly LabelledQuery[] = fixture('search-queries.json').queries;

const offers: ServerOffer[] = [
  ...Object.entries(snapshot.servers).map(([server, s]) => ({ server, tools: s.tools })),
  ...syntheticCatalog({ tools: 500, seed: 1 }),
];
const catalog = buildCatalog(offers);
const index = createToolIndex(catalog.tools);

/** Position of the first right tool among the top 5, or -1. */
const rankOf = (q: LabelledQuery) =>
  index.search(q.query, { limit: 5 }).findIndex((h) => q.expected.includes(h.name));

function rates(subset: readonly LabelledQuery[]) {
  const ranks = subset.map(rankOf);
  return {
    top1: ranks.filter((r) => r === 0).length / subset.length,
    top3: ranks.filter((r) => r >= 0 && r < 3).length / subset.length,
  };
}

describe('search quality', () => {
  it('indexes the published servers and the synthetic catalog without losing a tool', () => {
    expect(Object.keys(snapshot.servers).sort()).toEqual([
      'everything',
      'filesystem',
      'memory',
      'sequential-thinking',
    ]);
    expect(catalog.rejected).toEqual([]);
    expect(index.size).toBe(offers.reduce((n, o) => n + o.tools.length, 0));
  });

  it('labels only tools that exist in the catalog, with enough queries', () => {
    const known = new Set(catalog.tools.map((t) => t.name));
    expect(queries.filter((q) => q.catalog === 'published').length).toBeGreaterThanOrEqual(60);
    expect(queries.flatMap((q) => q.expected).filter((name) => !known.has(name))).toEqual([]);
    expect(new Set(queries.map((q) => q.query)).size).toBe(queries.length);
  });

  it('puts the right tool in the top 3 for at least 90 % of the labelled queries', () => {
    const all = rates(queries);
    const published = rates(queries.filter((q) => q.catalog === 'published'));
    const synthetic = rates(queries.filter((q) => q.catalog === 'synthetic'));
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    console.log(
      `search quality over ${index.size} tools, ${queries.length} queries: ` +
        `top-1 ${pct(all.top1)}, top-3 ${pct(all.top3)} ` +
        `(published: ${pct(published.top1)} / ${pct(published.top3)}; ` +
        `synthetic: ${pct(synthetic.top1)} / ${pct(synthetic.top3)})`,
    );
    const misses = queries.filter((q) => {
      const rank = rankOf(q);
      return rank < 0 || rank >= 3;
    });
    if (misses.length > 0) console.log(`not in the top 3: ${misses.map((q) => `"${q.query}"`).join(', ')}`);
    expect(all.top3).toBeGreaterThanOrEqual(0.9);
  });
});
