/**
 * Connection benchmark: our `Connection` against the raw SDK v2 `Client`, same fixture server
 * (the kitchen sink), same run, same Node, targets interleaved round by round.
 * Prints connect time, call latency p50/p99 and throughput at concurrency 1/16/64 for stdio
 * and Streamable HTTP in both eras, each with the ratio ours/raw. Target: p50 within 1.10×.
 *
 *   npm run bench:connection [-- --rounds 5 --calls 300 --only http/legacy]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Connection } from '../src/client/connection.js';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { normalizeServerEntry } from '../src/core/server-config.js';
import { buildFixtures } from '../test/fixtures/build.js';
import { kitchenSinkBin } from '../test/fixtures/paths.js';
import { fmt, median, percentile } from './stats.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const ROUNDS = Number(args.get('rounds') ?? 5);
const CALLS = Number(args.get('calls') ?? 300);
const WARMUP = Number(args.get('warmup') ?? 200);
const THROUGHPUT_CALLS = Number(args.get('throughput-calls') ?? 640);
const CONCURRENCY = [1, 16, 64];
/** `--only stdio/legacy` (or any `transport/era`) limits the run to one pairing. */
const ONLY = args.get('only');

type Era = 'legacy' | 'modern';
interface Handle {
  call(): Promise<void>;
  close(): Promise<void>;
}
interface Target {
  readonly label: string;
  connect(): Promise<Handle>;
}

function ourTarget(transport: 'stdio' | 'http', era: Era, url: string): Target {
  const entry =
    transport === 'stdio'
      ? { name: 'bench', command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] }
      : { name: 'bench', url };
  const config = normalizeServerEntry({ ...entry, protocol: era === 'modern' ? '2026-07-28' : 'legacy' });
  return {
    label: 'switchboard',
    async connect() {
      const conn = new Connection({ config, eraStore: new MemoryEraVerdictStore() });
      await conn.connect();
      await conn.listTools();
      return {
        call: async () => {
          await conn.callTool('echo', { text: 'ping' });
        },
        close: () => conn.close(),
      };
    },
  };
}

function rawTarget(transport: 'stdio' | 'http', era: Era, url: string): Target {
  return {
    label: 'raw SDK',
    async connect() {
      const client = new Client(
        { name: 'bench-raw', version: '1.0.0' },
        { versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' } },
      );
      const t =
        transport === 'stdio'
          ? new StdioClientTransport({
              command: process.execPath,
              args: [kitchenSinkBin, '--transport', 'stdio'],
              stderr: 'pipe',
            })
          : new StreamableHTTPClientTransport(new URL(url));
      await client.connect(t);
      await client.listTools();
      return {
        call: async () => {
          await client.callTool({ name: 'echo', arguments: { text: 'ping' } });
        },
        close: () => client.close(),
      };
    },
  };
}

async function startHttpFixture(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [kitchenSinkBin, '--transport', 'http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const parsed = JSON.parse(line) as { url: string };
    return { url: parsed.url, child };
  }
  throw new Error('the HTTP fixture did not print its URL');
}

interface Sample {
  connectMs: number[];
  p50: number[];
  p99: number[];
  throughput: Record<number, number[]>;
}

function emptySample(): Sample {
  return { connectMs: [], p50: [], p99: [], throughput: { 1: [], 16: [], 64: [] } };
}

async function measure(target: Target, into: Sample): Promise<void> {
  const t0 = performance.now();
  const handle = await target.connect();
  into.connectMs.push(performance.now() - t0);
  try {
    for (let i = 0; i < WARMUP; i++) await handle.call(); // warm-up: both processes reach steady JIT state
    const latencies: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const s = performance.now();
      await handle.call();
      latencies.push(performance.now() - s);
    }
    into.p50.push(percentile(latencies, 50));
    into.p99.push(percentile(latencies, 99));
    for (const c of CONCURRENCY) {
      let next = 0;
      const s = performance.now();
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next < THROUGHPUT_CALLS) {
            next++;
            await handle.call();
          }
        }),
      );
      into.throughput[c]!.push(THROUGHPUT_CALLS / ((performance.now() - s) / 1000));
    }
  } finally {
    await handle.close();
  }
}

const PAIRINGS = ['stdio/legacy', 'stdio/modern', 'http/legacy', 'http/modern'] as const;

/** Measures one pairing (in its own process, with its own HTTP fixture) and prints its rows. */
async function measurePairing(pairing: string): Promise<void> {
  let listenerWarnings = 0;
  // Counted and reported once instead of printed by the thousand (the default printer goes).
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name === 'MaxListenersExceededWarning') listenerWarnings++;
  });
  const [transport, era] = pairing.split('/') as ['stdio' | 'http', Era];
  const http = transport === 'http' ? await startHttpFixture() : undefined;
  try {
    const ours = ourTarget(transport, era, http?.url ?? '');
    const raw = rawTarget(transport, era, http?.url ?? '');
    const a = emptySample();
    const b = emptySample();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first so drift on the machine hits both alike.
      if (round % 2 === 0) {
        await measure(raw, b);
        await measure(ours, a);
      } else {
        await measure(ours, a);
        await measure(raw, b);
      }
    }
    const line = (name: string, ourV: number, rawV: number, unit: string, digits = 2) =>
      `${pairing.padEnd(14)} ${name.padEnd(16)} ours ${fmt(ourV, digits).padStart(9)} ${unit.padEnd(6)} raw ${fmt(rawV, digits).padStart(9)} ${unit.padEnd(6)} ratio ${fmt(ourV / rawV)}`;
    const rows = [
      line('connect', median(a.connectMs), median(b.connectMs), 'ms'),
      line('call p50', median(a.p50), median(b.p50), 'ms', 3),
      line('call p99', median(a.p99), median(b.p99), 'ms', 3),
      ...CONCURRENCY.map((c) =>
        line(`calls/s c=${c}`, median(a.throughput[c]!), median(b.throughput[c]!), '/s', 0),
      ),
    ];
    if (listenerWarnings > 0)
      rows.push(`${pairing.padEnd(14)} (${listenerWarnings} abort-listener leak warnings during the run)`);
    console.log(rows.join('\n'));
  } finally {
    http?.child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  if (ONLY !== undefined) {
    await measurePairing(ONLY);
    return;
  }
  await buildFixtures();
  // Each pairing runs in a fresh process: state left by one (sessions, heap) must not tax the next.
  for (const pairing of PAIRINGS) {
    const passOn = process.argv
      .slice(2)
      .filter((_, i, all) => all[i] !== '--only' && all[i - 1] !== '--only');
    // The raw SDK's HTTP transport piles abort listeners on one signal (undici frees them only
    // on GC); each pairing counts those warnings and reports them once.
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1]!, ...passOn, '--only', pairing],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the ${pairing} run failed (exit ${code})`);
  }
  console.log(
    `\nNode ${process.version}; medians of ${ROUNDS} interleaved rounds, ${CALLS} sequential calls, ${THROUGHPUT_CALLS} calls per concurrency level; one process per pairing.`,
  );
}

await main();
