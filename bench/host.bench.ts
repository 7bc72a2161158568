/**
 * Host benchmark. Prints figures and ratios measured in one run, same Node:
 *  1. Cold start of 20 stdio servers through the Supervisor vs the slowest single server
 *     started alone (target ≤ 1.2×).
 *  2. Catalog build for 10,000 tools across 50 servers (target ≤ 200 ms, ≤ 100 MB), cold
 *     (definitions never seen; with injection scanning, and without it as the baseline) and
 *     warm (the same definition objects again: hashes and scan findings cached).
 *  3. Memory per connection (heap and RSS growth per connected stdio server, client side).
 *  4. What a sandbox costs: spawn-to-ready and call latency, sandboxed vs not (goal ≤ 30 ms
 *     more to start, no measurable call overhead).
 *
 *   npm run bench:host [-- --rounds 3 --servers 20]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Tool } from '@modelcontextprotocol/client';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { normalizeServerEntry } from '../src/core/server-config.js';
import { buildCatalog, type ServerOffer } from '../src/host/catalog/catalog.js';
import { Supervisor } from '../src/host/supervisor/supervisor.js';
import { buildFixtures } from '../test/fixtures/build.js';
import { kitchenSinkBin } from '../test/fixtures/paths.js';
import { sandboxOverhead } from './sandbox-overhead.js';
import { fmt, median } from './stats.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const ROUNDS = Number(args.get('rounds') ?? 3);
const SERVERS = Number(args.get('servers') ?? 20);

const entry = (name: string) =>
  normalizeServerEntry({ name, command: process.execPath, args: [kitchenSinkBin], protocol: 'legacy' });

async function coldStart(count: number): Promise<{ allMs: number; perServerMs: number[] }> {
  const supervisor = new Supervisor({ connection: { eraStore: new MemoryEraVerdictStore() } });
  const t0 = performance.now();
  const connectedAt = new Map<string, number>();
  supervisor.on('servers', (snaps) => {
    for (const s of snaps)
      if (s.state === 'connected' && !connectedAt.has(s.name))
        connectedAt.set(s.name, performance.now() - t0);
  });
  supervisor.start(Array.from({ length: count }, (_, i) => entry(`s${i}`)));
  const snaps = await supervisor.settled(120_000);
  const allMs = performance.now() - t0;
  if (!snaps.every((s) => s.state === 'connected'))
    throw new Error(`not all connected: ${JSON.stringify(snaps)}`);
  await supervisor.stop();
  return { allMs, perServerMs: [...connectedAt.values()] };
}

/**
 * The floor: the same number of server processes started at once with no MCP client, until
 * each says it is ready (HTTP mode prints its URL). On 2 cores, servers whose start is CPU
 * work cannot all start in the time one takes; this is what the machine itself allows.
 */
async function processFloor(count: number): Promise<number> {
  const t0 = performance.now();
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [kitchenSinkBin, '--transport', 'http'], { stdio: ['ignore', 'pipe', 'ignore'] }),
  );
  await Promise.all(
    children.map(
      (c) => new Promise((resolve) => createInterface({ input: c.stdout! }).once('line', resolve)),
    ),
  );
  const ms = performance.now() - t0;
  for (const c of children) c.kill('SIGKILL');
  return ms;
}

function syntheticOffers(servers: number, toolsEach: number): ServerOffer[] {
  return Array.from({ length: servers }, (_, s) => ({
    server: `server-${s}`,
    tools: Array.from(
      { length: toolsEach },
      (_, t): Tool => ({
        name: `tool_${t}_${'x'.repeat(t % 20)}`,
        description: `Tool ${t} of server ${s}: does a thing with its arguments and returns a result.`,
        inputSchema: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'Where' },
            limit: { type: 'integer', minimum: 1 },
            tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
          },
          required: ['path'],
          $defs: { tag: { type: 'string', enum: ['a', 'b', 'c'] } },
        },
        annotations: { readOnlyHint: t % 2 === 0 },
      }),
    ),
  }));
}

async function main(): Promise<void> {
  await buildFixtures();

  // 1. Cold start: the slowest of single servers started alone vs all of them at once.
  const single: number[] = [];
  const together: number[] = [];
  const floor: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    floor.push(await processFloor(SERVERS));
    const alone: number[] = [];
    for (let i = 0; i < 5; i++) alone.push((await coldStart(1)).allMs);
    single.push(Math.max(...alone));
    together.push((await coldStart(SERVERS)).allMs);
  }
  const slowest = median(single);
  const all = median(together);
  console.log(`cold start, slowest single server   ${fmt(slowest, 0).padStart(7)} ms`);
  console.log(
    `cold start, ${SERVERS} servers together  ${fmt(all, 0).padStart(7)} ms   ratio ${fmt(all / slowest)} (target ≤ 1.2)`,
  );
  console.log(
    `${SERVERS} server processes alone, no MCP     ${fmt(median(floor), 0).padStart(7)} ms   ours / floor ${fmt(all / median(floor))}`,
  );

  // 2. Catalog build.
  // The definitions belong to the connections; what the catalog adds is measured.
  const offers = syntheticOffers(50, 200);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let kept: unknown;
  const cold: number[] = [];
  const coldUnscanned: number[] = [];
  const warm: number[] = [];
  for (let r = 0; r < 5; r++) {
    // Interleaved: the same fresh definitions built without injection scanning, as the baseline.
    const unscanned = syntheticOffers(50, 200);
    let t = performance.now();
    buildCatalog(unscanned, { scan: 'off' });
    coldUnscanned.push(performance.now() - t);
    const fresh = syntheticOffers(50, 200);
    t = performance.now();
    buildCatalog(fresh);
    cold.push(performance.now() - t);
    t = performance.now();
    const snapshot = buildCatalog(offers);
    warm.push(performance.now() - t);
    kept = snapshot;
    if (snapshot.tools.length !== 10_000)
      throw new Error(`expected 10000 tools, got ${snapshot.tools.length}`);
  }
  // What stays: the definitions, one snapshot, and the cached hashes and scan findings.
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  if (!kept) throw new Error('no snapshot');
  console.log(
    `catalog 10,000 tools / 50 servers, cold   ${fmt(median(cold), 1).padStart(7)} ms (target ≤ 200)`,
  );
  console.log(
    `catalog 10,000 tools, cold, scan off      ${fmt(median(coldUnscanned), 1).padStart(7)} ms   scanning costs ×${fmt(median(cold) / median(coldUnscanned))}`,
  );
  console.log(`catalog 10,000 tools / 50 servers, warm   ${fmt(median(warm), 1).padStart(7)} ms`);
  console.log(
    `catalog heap retained (snapshot + caches) ${fmt((heapAfter - heapBefore) / 1024 / 1024, 1).padStart(7)} MB (target ≤ 100)`,
  );

  // 3. Memory per connection (client side).
  global.gc?.();
  const m0 = process.memoryUsage();
  const supervisor = new Supervisor({ connection: { eraStore: new MemoryEraVerdictStore() } });
  supervisor.start(Array.from({ length: SERVERS }, (_, i) => entry(`m${i}`)));
  await supervisor.settled(120_000);
  global.gc?.();
  const m1 = process.memoryUsage();
  console.log(
    `memory per connection                     ${fmt((m1.heapUsed - m0.heapUsed) / SERVERS / 1024, 0).padStart(7)} KiB heap, ${fmt((m1.rss - m0.rss) / SERVERS / 1024, 0)} KiB RSS`,
  );
  await supervisor.stop();

  // 4. The sandbox's cost.
  await sandboxOverhead(Math.max(ROUNDS, 5));
  console.log(`\nNode ${process.version}; medians of ${ROUNDS} rounds (cold start) and 5 (catalog).`);
}

await main();
