/**
 * Process-tree benchmark (Linux): what ending stdio servers' whole trees costs and how well it
 * works.
 *
 * 1. The cost of one tree scan (`readProcessTable` + `selectTree`) with `--extra` idle
 *    processes started for the occasion, against a bare `readdir('/proc')` in the same run:
 *    a server's query (environments read only of processes started after the server) and a
 *    dead host's (every environment read: the worst case).
 * 2. The watchdog's resident memory against an idle Node process's.
 * 3. `--trials` real hosts (test/fixtures/spawning-host-main.ts, two stdio servers that leave
 *    four daemons each) killed with SIGKILL at random moments (seeded): processes left right
 *    after the kill (what nothing reaps), then after the watchdog, or after the next host's
 *    start without one.
 *
 *   npx tsx bench/process-tree.bench.ts [--extra 300] [--runs 30] [--trials 50] [--seed 1]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readProcess, readProcessTable } from '../src/client/transports/process-table.js';
import { selectTree } from '../src/client/transports/process-tree.js';
import { SpawnWatchdog } from '../src/host/supervisor/spawn-watchdog.js';
import { buildFixtures } from '../test/fixtures/build.js';
import { formatHostKills, runHostKills } from './host-kills.js';
import { fmt, median, percentile } from './stats.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const EXTRA = Number(args.get('extra') ?? 300);
const RUNS = Number(args.get('runs') ?? 30);
const TRIALS = Number(args.get('trials') ?? 50);
const SEED = Number(args.get('seed') ?? 1);

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function scanCost(): Promise<void> {
  const idle: ChildProcess[] = [];
  for (let i = 0; i < EXTRA; i++) idle.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
  await Promise.all(idle.map((c) => new Promise((resolve) => c.once('spawn', resolve))));
  const self = readProcess(process.pid)!;
  const server = { roots: [self], mark: { value: 'none/none' }, notBefore: self.startTime };
  const host = { roots: [], mark: { prefix: 'none/' }, notBefore: 0 };
  const bare: number[] = [];
  const serverScans: number[] = [];
  const hostScans: number[] = [];
  let processes = 0;
  for (let i = 0; i < RUNS; i++) {
    bare.push(time(() => readdirSync('/proc')));
    serverScans.push(
      time(() => {
        const table = readProcessTable();
        processes = table.entries.size;
        selectTree(table, server);
      }),
    );
    hostScans.push(time(() => selectTree(readProcessTable(), host)));
  }
  for (const c of idle) c.kill('SIGKILL');
  const base = median(bare);
  console.log(`\n1. tree scan over ${processes} processes (${RUNS} runs), ms`);
  console.log('   what                      p50      p90    ratio to readdir');
  const row = (what: string, s: number[]) =>
    console.log(
      `   ${what.padEnd(24)} ${fmt(median(s)).padStart(6)}   ${fmt(percentile(s, 90)).padStart(6)}    ${fmt(median(s) / base, 1)}`,
    );
  row('readdir /proc (baseline)', bare);
  row("a server's tree", serverScans);
  row("a dead host's trees", hostScans);
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
}

async function watchdogMemory(): Promise<void> {
  const watchdog = SpawnWatchdog.start(`${randomBytes(16).toString('hex')}/`)!;
  const node = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500)); // both settle into their wait
  const ours = rssKiB(watchdog.pid!);
  const baseline = rssKiB(node.pid!);
  watchdog.stop();
  node.kill('SIGKILL');
  console.log(
    `\n2. watchdog memory: ${ours} KiB resident; an idle Node process: ${baseline} KiB (${fmt(ours / baseline)}×)`,
  );
}

async function killTrials(): Promise<void> {
  const results = await runHostKills({ kills: TRIALS, seed: SEED });
  console.log(`\n3. hosts killed with SIGKILL at random moments (seed ${SEED})`);
  console.log(formatHostKills(results));
}

if (process.platform !== 'linux') {
  console.log('Linux only: tree scans read /proc.');
} else {
  await buildFixtures();
  await scanCost();
  await watchdogMemory();
  await killTrials();
}
