/**
 * Connection benchmark: our `Connection` against the raw SDK v2 `Client`, same fixture server
 * (the kitchen sink), same run, same Node. Every measurement runs alone in a fresh process
 * (so one client's garbage and JIT state never tax the other), and the two targets alternate
 * round by round. Prints connect time, call latency p50/p99 and throughput at concurrency
 * 1/16/64 for stdio and Streamable HTTP in both eras, with the ratio ours/raw of the medians
 * over the rounds. Target: p50 within 1.10×.
 *
 *   npm run bench:connection [-- --rounds 5 --calls 2000 --warmup 500 --only http/legacy]
 */
import { execFile, spawn } from 'node:child_process';
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
const CALLS = Number(args.get('calls') ?? 2000);
const WARMUP = Number(args.get('warmup') ?? 500);
const THROUGHPUT_CALLS = Number(args.get('throughput-calls') ?? 1280);
const CONCURRENCY = [1, 16, 64] as const;
/** `--only stdio/legacy` (or any `transport/era`) limits the run to one pairing. */
const ONLY = args.get('only');

type Era = 'legacy' | 'modern';
type TransportKind = 'stdio' | 'http';
type Who = 'ours' | 'raw';

interface Handle {
  call(): Promise<void>;
  close(): Promise<void>;
}

/** One measurement, as a child prints it. */
interface Measurement {
  connectMs: number;
  p50: number;
  p99: number;
  throughput: Record<string, number>;
}

async function connect(who: Who, transport: TransportKind, era: Era, url: string): Promise<Handle> {
  if (who === 'ours') {
    const entry =
      transport === 'stdio'
        ? { name: 'bench', command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] }
        : { name: 'bench', url };
    const config = normalizeServerEntry({ ...entry, protocol: era === 'modern' ? '2026-07-28' : 'legacy' });
    const conn = new Connection({ config, eraStore: new MemoryEraVerdictStore() });
    await conn.connect();
    await conn.listTools();
    return {
      call: async () => {
        await conn.callTool('echo', { text: 'ping' });
      },
      close: () => conn.close(),
    };
  }
  const client = new Client(
    { name: 'bench-raw', version: '1.0.0' },
    { versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' } },
  );
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [kitchenSinkBin, '--transport', 'stdio'],
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(url)),
  );
  await client.listTools();
  return {
    call: async () => {
      await client.callTool({ name: 'echo', arguments: { text: 'ping' } });
    },
    close: () => client.close(),
  };
}

/** Child side: one target, one measurement, printed as JSON. */
async function measureOnce(who: Who, transport: TransportKind, era: Era, url: string): Promise<Measurement> {
  const t0 = performance.now();
  const handle = await connect(who, transport, era, url);
  const connectMs = performance.now() - t0;
  try {
    for (let i = 0; i < WARMUP; i++) await handle.call(); // both processes reach a steady JIT state
    const latencies: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const s = performance.now();
      await handle.call();
      latencies.push(performance.now() - s);
    }
    const throughput: Record<string, number> = {};
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
      throughput[c] = THROUGHPUT_CALLS / ((performance.now() - s) / 1000);
    }
    return { connectMs, p50: percentile(latencies, 50), p99: percentile(latencies, 99), throughput };
  } finally {
    await handle.close();
  }
}

async function startHttpFixture(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [kitchenSinkBin, '--transport', 'http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolve((JSON.parse(line) as { url: string }).url),
    );
    child.once('exit', (code) =>
      reject(new Error(`the HTTP fixture exited (${code}) before printing its URL`)),
    );
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

/** Parent side: runs one measurement in a fresh process. */
function measureInChild(who: Who, transport: TransportKind, era: Era, url: string): Promise<Measurement> {
  const passOn = [
    '--calls',
    String(CALLS),
    '--warmup',
    String(WARMUP),
    '--throughput-calls',
    String(THROUGHPUT_CALLS),
  ];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1]!,
        '--child',
        `${who}/${transport}/${era}`,
        '--url',
        url || '-',
        ...passOn,
      ],
      { maxBuffer: 1024 * 1024, timeout: 300_000 },
      (error, stdout) => {
        if (error) return reject(error);
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement);
      },
    );
  });
}

async function main(): Promise<void> {
  const child = args.get('child');
  if (child) {
    const [who, transport, era] = child.split('/') as [Who, TransportKind, Era];
    // The raw SDK's HTTP transport piles abort listeners on one signal (undici frees them only
    // on GC); its warnings would drown the output, so they are not printed.
    process.removeAllListeners('warning');
    const url = args.get('url');
    console.log(JSON.stringify(await measureOnce(who, transport, era, url === '-' ? '' : (url ?? ''))));
    return;
  }
  await buildFixtures();
  for (const transport of ['stdio', 'http'] as const) {
    for (const era of ['legacy', 'modern'] as const) {
      const pairing = `${transport}/${era}`;
      if (ONLY !== undefined && ONLY !== pairing) continue;
      const http = transport === 'http' ? await startHttpFixture() : undefined;
      const results: Record<Who, Measurement[]> = { ours: [], raw: [] };
      try {
        for (let round = 0; round < ROUNDS; round++) {
          // Alternate who goes first so drift on the machine hits both alike.
          for (const who of round % 2 === 0 ? (['raw', 'ours'] as const) : (['ours', 'raw'] as const)) {
            results[who].push(await measureInChild(who, transport, era, http?.url ?? ''));
          }
        }
      } finally {
        http?.stop();
      }
      const med = (who: Who, pick: (m: Measurement) => number) => median(results[who].map(pick));
      const line = (name: string, pick: (m: Measurement) => number, unit: string, digits = 2) => {
        const ours = med('ours', pick);
        const raw = med('raw', pick);
        return `${pairing.padEnd(14)} ${name.padEnd(16)} ours ${fmt(ours, digits).padStart(9)} ${unit.padEnd(3)} raw ${fmt(raw, digits).padStart(9)} ${unit.padEnd(3)} ratio ${fmt(ours / raw)}`;
      };
      console.log(
        [
          line('connect', (m) => m.connectMs, 'ms'),
          line('call p50', (m) => m.p50, 'ms', 3),
          line('call p99', (m) => m.p99, 'ms', 3),
          ...CONCURRENCY.map((c) => line(`calls/s c=${c}`, (m) => m.throughput[c]!, '/s', 0)),
        ].join('\n'),
      );
    }
  }
  console.log(
    `\nNode ${process.version}; medians over ${ROUNDS} rounds, each target alone in a fresh process per round ` +
      `(${WARMUP} warm-up calls, ${CALLS} sequential calls, ${THROUGHPUT_CALLS} calls per concurrency level).`,
  );
}

await main();
