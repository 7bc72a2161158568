import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Host } from '../src/host/host.js';
import { misbehavingBin, spawningHostBin } from '../test/fixtures/paths.js';
import { killSurvivors, processesWithEnv } from '../test/helpers/processes.js';
import { fmt, median } from './stats.js';

/**
 * Real hosts (test/fixtures/spawning-host-main.ts: two stdio servers that leave four daemons
 * each) killed with SIGKILL at seeded random moments, for the benchmarks that count what a
 * host's death leaves. Every process of a trial carries `SB_TRIAL=<tag>` in its environment,
 * which is how it is counted and, at the end of the trial, killed.
 */

/** mulberry32: random moments that are the same on every run with the same seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one way of cleaning up after a killed host left, summed over its trials. */
export interface HostKillRow {
  trials: number;
  /** Trials whose host was killed after its servers had started their daemons. */
  killedReady: number;
  /** Processes of the trial alive right after the kill (ledger trials only: nothing reaps them yet). */
  unreaped: number;
  /** Processes left after the watchdog (2 s at most) or after the next host's start. */
  left: number;
  /** Per trial, ms from the kill (or the next host's start) to none left; only trials that got there. */
  toNoneMs: number[];
}

export interface HostKillResults {
  readonly seed: number;
  /** The next host on the same data dir reaps (watchdog off). */
  readonly ledger: HostKillRow;
  /** The killed host's watchdog reaps. */
  readonly watchdog: HostKillRow;
}

export interface HostKillOptions {
  /** Hosts to kill; they alternate between the two variants. */
  readonly kills: number;
  readonly seed: number;
  /** The kill comes at a random moment in [0, maxDelayMs) after the host said it was created (or, every other pair of trials, ready). */
  readonly maxDelayMs?: number;
  /** Added to each host's environment (a run's marker, so the run can find its hosts). */
  readonly env?: Readonly<Record<string, string>>;
}

/** How long a host may take to say it was created or ready before the wait for the kill starts anyway. */
const SAID_MS = 30_000;

/** How long the watchdog is given before what is left is counted. */
const WATCHDOG_GRACE_MS = 2000;

/** Polls until no process carries `tag` or `ms` passed: the count left and when it reached 0. */
async function settle(tag: string, ms: number): Promise<{ left: number; atMs?: number }> {
  const start = performance.now();
  for (;;) {
    const left = processesWithEnv('SB_TRIAL', tag).length;
    if (left === 0) return { left, atMs: performance.now() - start };
    if (performance.now() - start > ms) return { left };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the kills one after another; every process of every trial is gone when it returns. */
export async function runHostKills(options: HostKillOptions): Promise<HostKillResults> {
  const random = seeded(options.seed);
  const maxDelayMs = options.maxDelayMs ?? 2500;
  const row = (): HostKillRow => ({ trials: 0, killedReady: 0, unreaped: 0, left: 0, toNoneMs: [] });
  const results = { seed: options.seed, ledger: row(), watchdog: row() };
  for (let trial = 0; trial < options.kills; trial++) {
    const variant = trial % 2 === 0 ? 'ledger' : 'watchdog';
    const dataDir = await mkdtemp(join(tmpdir(), 'sb-bench-kill-'));
    const tag = randomBytes(8).toString('hex');
    try {
      const args = [spawningHostBin, '--data-dir', dataDir, '--server-bin', misbehavingBin, '--tag', tag];
      if (variant === 'ledger') args.push('--watchdog', 'off');
      const env = { ...process.env, ...options.env };
      const child = spawn(process.execPath, args, {
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: true,
        env,
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      let ready = false;
      let created = () => {};
      let serversReady = () => {};
      const said = {
        created: new Promise<void>((r) => (created = r)),
        ready: new Promise<void>((r) => (serversReady = r)),
      };
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line === 'host-created') created();
        if (line === 'servers-ready') {
          ready = true;
          serversReady();
        }
      });
      // Counted from the host's creation (before it no server runs, nothing could be left), or
      // every other pair of trials from its servers' being ready (a loaded machine takes seconds).
      const from = Math.floor(trial / 2) % 2 === 0 ? said.created : said.ready;
      let timer: NodeJS.Timeout | undefined;
      const after = (ms: number) => new Promise((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([from, exited, after(SAID_MS)]);
      clearTimeout(timer);
      await Promise.race([after(random() * maxDelayMs), exited]);
      clearTimeout(timer);
      if (ready) results[variant].killedReady++;
      process.kill(child.pid!, 'SIGKILL');
      await exited;
      const summary = results[variant];
      summary.trials++;
      if (variant === 'ledger') {
        summary.unreaped += processesWithEnv('SB_TRIAL', tag).length;
        const start = performance.now();
        await (await Host.create({ dataDir, watchdog: false })).close();
        const left = processesWithEnv('SB_TRIAL', tag).length;
        summary.left += left;
        if (left === 0) summary.toNoneMs.push(performance.now() - start);
      } else {
        const { left, atMs } = await settle(tag, WATCHDOG_GRACE_MS);
        summary.left += left;
        if (atMs !== undefined) summary.toNoneMs.push(atMs);
      }
    } finally {
      killSurvivors(processesWithEnv('SB_TRIAL', tag));
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  return results;
}

/** The results as a table, indented by `indent`. */
export function formatHostKills(results: HostKillResults, indent = '   '): string {
  const ms = (values: number[]) =>
    values.length === 0 ? '-' : `${fmt(median(values), 0)} / ${fmt(Math.max(...values), 0)}`;
  const line = (what: string, r: HostKillRow, unreaped: string) =>
    `${indent}${what.padEnd(33)}${String(r.trials).padStart(6)}   ${String(r.killedReady).padStart(15)}   ${unreaped.padStart(26)}   ${String(r.left).padStart(18)}   ${ms(r.toNoneMs).padStart(19)}`;
  return [
    `${indent}variant                          trials   killed when ready   left right after the kill   left after reaping   to none, ms p50/max`,
    line("next host's start (no watchdog)", results.ledger, String(results.ledger.unreaped)),
    line(`watchdog (${WATCHDOG_GRACE_MS / 1000} s after the kill)`, results.watchdog, '-'),
  ].join('\n');
}
