/**
 * Tokens of the tool definitions handed to a model (o200k tokenizer, the one of GPT-4o and
 * later), counted on the OpenAI Chat Completions `tools` payload:
 *  - all loaded, raw schemas (what a host without lazy loading sends);
 *  - all loaded, compacted schemas;
 *  - lazy, no grants (meta-tools only);
 *  - lazy, two servers granted.
 * On two catalogs: the tool lists of published MCP servers (test/fixtures/catalogs, made by
 * scripts/snapshot-published-tools.ts) and a synthetic 500-tool catalog. Deterministic: one
 * run gives the figures. Also: `search_tools` quality on the labelled query set.
 *
 *   npm run bench:tokens
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toOpenAIChatTools } from '../src/agents/adapters/openai-chat.js';
import { contentToolDefinition } from '../src/agents/meta-tools/content-tool.js';
import { ACTIVATE_TOOLS, SEARCH_TOOLS } from '../src/agents/meta-tools/definitions.js';
import { createToolIndex } from '../src/agents/search/tool-index.js';
import { type AgentTool, agentToolOf, effectiveToolSet } from '../src/agents/tool-set.js';
import { buildCatalog, type CatalogSnapshot } from '../src/host/catalog/catalog.js';
import {
  printFreshQuality,
  printSearchQuality,
  printSearchTiming,
  realOffers,
  timeNeighbourTableLoad,
} from './search-quality.js';
import { syntheticCatalog } from './synthetic-catalog.js';

// Before anything searches: the word-neighbour table loads once per process.
const tableLoadMs = timeNeighbourTableLoad();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Published {
  servers: Record<string, { tools: Tool[] }>;
}

function tokensOf(tools: readonly AgentTool[], compact: boolean): number {
  return countTokens(JSON.stringify(toOpenAIChatTools(tools, { compact })));
}

/** Tokens of the schemas alone (`parameters`), each counted on its own. */
function schemaTokensOf(tools: readonly AgentTool[], compact: boolean): number {
  return toOpenAIChatTools(tools, { compact }).reduce(
    (sum, t) => sum + countTokens(JSON.stringify(t.function.parameters)),
    0,
  );
}

function measure(label: string, catalog: CatalogSnapshot, metaTools: AgentTool[], grant: string[]): void {
  const all = catalog.tools.map(agentToolOf);
  const lazy = (granted: string[]) =>
    effectiveToolSet({
      catalog: catalog.tools,
      deferralOf: () => 'deferred',
      granted: new Set(granted),
      metaTools,
      configTools: [],
    });
  const raw = tokensOf(all, false);
  const compacted = tokensOf(all, true);
  const schemasRaw = schemaTokensOf(all, false);
  const schemasCompacted = schemaTokensOf(all, true);
  const none = tokensOf(lazy([]), true);
  const two = tokensOf(lazy(grant), true);
  const pct = (n: number) => `${((100 * n) / raw).toFixed(2)}%`;
  console.log(`\n${label}: ${all.length} tools`);
  console.log(`  all loaded, raw schemas        ${String(raw).padStart(7)} tokens  100%`);
  console.log(
    `  all loaded, compacted          ${String(compacted).padStart(7)} tokens  ${pct(compacted)}  (ratio ${(compacted / raw).toFixed(3)})`,
  );
  console.log(
    `  schemas alone: raw ${schemasRaw}, compacted ${schemasCompacted} tokens (ratio ${(schemasCompacted / schemasRaw).toFixed(3)}, target ≤ 0.8 on published)`,
  );
  console.log(
    `  lazy, no grants                ${String(none).padStart(7)} tokens  ${pct(none)}  (target ≤ 1% of all loaded)`,
  );
  console.log(`  lazy, ${grant.join(' + ')} granted ${String(two).padStart(7)} tokens  ${pct(two)}`);
}

function searchQuality(catalog: CatalogSnapshot): void {
  const queries = JSON.parse(
    readFileSync(join(root, 'test/fixtures/catalogs/search-queries.json'), 'utf8'),
  ) as { queries: { query: string; expected: string[]; catalog?: string }[] };
  const index = createToolIndex(catalog.tools);
  const published = queries.queries.filter((q) => (q.catalog ?? 'published') === 'published');
  let top1 = 0;
  let top3 = 0;
  for (const q of published) {
    const hits = index.search(q.query, { limit: 3 }).map((h) => h.name);
    if (q.expected.includes(hits[0] ?? '')) top1++;
    if (hits.some((h) => q.expected.includes(h))) top3++;
  }
  const n = published.length;
  console.log(
    `\nsearch_tools on the published catalog: ${n} labelled queries, top-1 ${((100 * top1) / n).toFixed(1)}%, top-3 ${((100 * top3) / n).toFixed(1)}% (target ≥ 90%)`,
  );
}

const published = JSON.parse(
  readFileSync(join(root, 'test/fixtures/catalogs/published-tools.json'), 'utf8'),
) as Published;
const publishedCatalog = buildCatalog(
  Object.entries(published.servers).map(([server, { tools }]) => ({ server, tools })),
);
// The published servers offer resources and prompts too (server-everything does), so the
// lazy set carries the resources-and-prompts meta-tool as well.
measure(
  'published servers',
  publishedCatalog,
  [ACTIVATE_TOOLS, SEARCH_TOOLS, contentToolDefinition({ resources: true, prompts: true })!],
  ['filesystem', 'memory'],
);
const synthetic = buildCatalog(syntheticCatalog({ tools: 500 }));
measure(
  'synthetic 500-tool catalog',
  synthetic,
  [ACTIVATE_TOOLS, SEARCH_TOOLS],
  [synthetic.tools[0]!.server, synthetic.tools.at(-1)!.server],
);
measure(
  'fifteen real servers (published + npm snapshots)',
  buildCatalog(realOffers()),
  [ACTIVATE_TOOLS, SEARCH_TOOLS, contentToolDefinition({ resources: true, prompts: true })!],
  ['filesystem', 'github'],
);
measure(
  'fifteen real servers, tools only',
  buildCatalog(realOffers()),
  [ACTIVATE_TOOLS, SEARCH_TOOLS],
  ['filesystem', 'github'],
);
searchQuality(publishedCatalog);
printSearchQuality({ misses: process.argv.includes('--misses') });
printFreshQuality();
printSearchTiming(tableLoadMs);
