/**
 * Faults benchmark (Linux): how fast a server's death reaches the calls pending on it, and
 * what is left of the processes after connect/close cycles and after a host's SIGKILL.
 *
 * 1. For a stdio server, one run through `sh -c '… & wait'` (the shell holds the pipes), one
 *    whose helper holds its pipes, Streamable HTTP answering in JSON and in SSE, and legacy
 *    HTTP+SSE (2024-11-05, every answer on one event stream): ms from
 *    the server's death (taken just before our SIGKILL, or when its sockets were destroyed)
 *    to the failure of the first and of the last of `--calls` pending calls, through a bare
 *    `Connection` and through a `Host`. Baseline: the same death seen by Node alone (a
 *    child's `exit` event; `fetch` failing).
 * 2. Processes left after `--cycles` connect/close cycles of stdio servers that start
 *    processes (a grandchild, a pipe holder, one in a session of its own, four daemons).
 * 3. Processes left after `--kills` real hosts were killed with SIGKILL at seeded random
 *    moments: once their watchdog did its work, or once the next host started on the data dir.
 *
 * Goals: a death fails every pending call within 100 ms (on an idle machine); nothing is left.
 * Every process started carries SB_FAULTS=<run> (the hosts of part 3 SB_TRIAL=<trial> too);
 * the run ends by looking for them in /proc and killing any it finds.
 *
 *   npm run bench:faults [-- --trials 10 --cycles 300 --kills 100 --calls 20 --parallel 4 --seed 1]
 *   quick: npm run bench:faults -- --trials 2 --cycles 20 --kills 6
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { buildFixtures } from '../test/fixtures/build.js';
import { killSurvivors, processesWithEnv } from '../test/helpers/processes.js';
import { CYCLE_MODES, type CycleMode, runCycles } from './fault-cycles.js';
import { DEATH_TARGETS, type DeathSample, measureDeaths } from './fault-deaths.js';
import { formatHostKills, runHostKills } from './host-kills.js';
import { fmt, median } from './stats.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
function count(name: string, fallback: number): number {
  const value = Number(args.get(name) ?? fallback);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`--${name} must be a whole number (got ${args.get(name)})`);
  return value;
}
const TRIALS = count('trials', 10);
const CYCLES = count('cycles', 300);
const KILLS = count('kills', 100);
const CALLS = Math.max(1, count('calls', 20));
const PARALLEL = Math.max(1, count('parallel', 4));
const SEED = count('seed', 1);
/** Each pending call's own timeout: one that waits for it stands out at this figure. */
const TIMEOUT_MS = 10_000;
const GOAL_MS = 100;
const MARKER = { name: 'SB_FAULTS', value: randomBytes(8).toString('hex') };

const pad = (value: string, width: number) => value.padStart(width);
const stats = (values: number[]) =>
  `${pad(fmt(median(values), 1), 7)} ${pad(fmt(Math.max(...values), 1), 7)}`;

async function deaths(): Promise<void> {
  console.log(`\n1. a server's death with ${CALLS} calls pending: ms from the death (${TRIALS} trials each)`);
  console.log(
    '   target       path           first p50     max    last p50     max   baseline p50   ratio   max < 100   how the calls ended',
  );
  for (const target of DEATH_TARGETS) {
    const figures = await measureDeaths(target, {
      trials: TRIALS,
      calls: CALLS,
      timeoutMs: TIMEOUT_MS,
      marker: MARKER,
    });
    const base = median(figures.baseline);
    const row = (path: string, samples: DeathSample[], label: string) => {
      const last = samples.map((s) => s.lastMs);
      const outcomes: Record<string, number> = {};
      for (const s of samples)
        for (const [key, n] of Object.entries(s.outcomes)) outcomes[key] = (outcomes[key] ?? 0) + n;
      const ended = Object.entries(outcomes)
        .map(([key, n]) => `${key} ${n}`)
        .join(', ');
      const goal = Math.max(...last) < GOAL_MS ? 'yes' : 'NO';
      console.log(
        `   ${label.padEnd(12)} ${path.padEnd(12)} ${stats(samples.map((s) => s.firstMs))}    ${stats(last)}   ${pad(path === 'Connection' ? fmt(base, 1) : '', 12)}   ${pad(fmt(median(last) / base, 1), 5)}   ${pad(goal, 9)}   ${ended}`,
      );
    };
    row('Connection', figures.connection, target);
    row('Host', figures.host, '');
  }
  console.log(
    "   baseline: stdio, pipe-holder: a plain Node child SIGKILLed → its exit event; sh -c: the same under the shell → the shell's exit;",
  );
  console.log(
    `   HTTP: ${CALLS} fetches pending on a plain node:http server whose sockets are destroyed → the last failure;`,
  );
  console.log('   legacy sse: one event stream (a fetch) on such a server → its failure');
}

async function cycles(): Promise<void> {
  const figures = await runCycles({ cycles: CYCLES, parallel: PARALLEL, marker: MARKER });
  console.log(
    `\n2. processes left after ${CYCLES} connect/close cycles of stdio servers (${PARALLEL} at a time)`,
  );
  console.log(
    '   mode                  cycles   processes per tree p50   left after close()   not ready   close ms p50     max',
  );
  for (const mode of Object.keys(CYCLE_MODES) as CycleMode[]) {
    const f = figures[mode];
    if (f.cycles === 0) continue;
    console.log(
      `   ${mode.padEnd(20)} ${pad(String(f.cycles), 7)}   ${pad(fmt(median(f.treeSizes), 0), 22)}   ${pad(String(f.left), 18)}   ${pad(String(f.notReady), 9)}   ${stats(f.closeMs)}`,
    );
  }
}

async function kills(): Promise<void> {
  const results = await runHostKills({
    kills: KILLS,
    seed: SEED,
    env: { [MARKER.name]: MARKER.value },
  });
  console.log(
    `\n3. processes left after ${KILLS} hosts were killed with SIGKILL at random moments (seed ${SEED})`,
  );
  console.log(formatHostKills(results));
}

/** Every process of this run still alive, killed; returns how many there were. */
function sweep(): number {
  return killSurvivors(processesWithEnv(MARKER.name, MARKER.value)).length;
}

async function section(name: string, run: () => Promise<void>): Promise<void> {
  const start = performance.now();
  await run();
  console.log(`   (${name}: ${fmt((performance.now() - start) / 1000, 1)} s)`);
}

if (process.platform !== 'linux') {
  console.log('Linux only: processes are counted in /proc.');
} else {
  process.once('SIGINT', () => {
    sweep();
    process.exit(130);
  });
  const start = performance.now();
  console.log(
    `faults benchmark: ${availableParallelism()} cores, load ${loadavg()
      .map((l) => fmt(l, 1))
      .join(' ')}; goals: every pending call failed within ${GOAL_MS} ms of the death, no process left`,
  );
  await buildFixtures();
  try {
    if (TRIALS > 0) await section('deaths', deaths);
    if (CYCLES > 0) await section('cycles', cycles);
    if (KILLS > 0) await section('host kills', kills);
  } finally {
    const left = sweep();
    console.log(`\nprocesses of this run found in /proc at the end: ${left}${left > 0 ? ' (killed)' : ''}`);
    console.log(`total ${fmt((performance.now() - start) / 1000, 1)} s`);
  }
}
