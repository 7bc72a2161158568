import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src/host/host.js';
import { misbehavingBin, spawningHostBin } from '../fixtures/paths.js';
import { killSurvivors, medianAndMax, processesWithEnv, running } from '../helpers/processes.js';

/**
 * A real host process (test/fixtures/spawning-host-main.ts) with stdio servers that leave
 * daemons of every kind (setsid, double fork, nohup, own process group), killed with SIGKILL
 * at seeded random moments: nothing of it may be left, by its watchdog at once, or else by the
 * next host to start on its data dir. What is "of it" is found by a tag in the servers'
 * environment that every descendant inherits, independent of the host's own marker.
 */
const children = new Set<ChildProcess>();
const tags = new Set<string>();
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  const survivors = [...tags].flatMap((tag) => killSurvivors(processesWithEnv('SB_TRIAL', tag)));
  tags.clear();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  expect(survivors).toEqual([]);
});

/** mulberry32: the kill moments are random but the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface StartedHost {
  readonly child: ChildProcess;
  readonly tag: string;
  readonly dataDir: string;
  /** Resolves on the first line of the host's stdout that equals `line`. */
  said(line: 'host-created' | 'servers-ready'): Promise<void>;
  exited: Promise<void>;
}

function startHost(dataDir: string, options: { watchdog: boolean; exitWhenReady?: boolean }): StartedHost {
  const tag = randomBytes(8).toString('hex');
  tags.add(tag);
  const args = [spawningHostBin, '--data-dir', dataDir, '--server-bin', misbehavingBin, '--tag', tag];
  if (!options.watchdog) args.push('--watchdog', 'off');
  if (options.exitWhenReady) args.push('--exit-when-ready');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let out = '';
  const waiting: { line: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiting) if (out.split('\n').includes(w.line)) w.resolve();
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    tag,
    dataDir,
    exited,
    said: (line) =>
      new Promise<void>((resolve, reject) => {
        if (out.split('\n').includes(line)) return resolve();
        waiting.push({ line, resolve });
        void exited.then(() => setImmediate(() => reject(new Error(`host exited before "${line}": ${err}`))));
      }),
  };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-kill-'));
  dirs.push(dir);
  return dir;
}

/** Polls until no process carries the tag; returns when that was seen (performance.now()). */
async function noneLeft(tag: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 50)) {
    const left = processesWithEnv('SB_TRIAL', tag);
    if (left.length === 0) return performance.now();
    if (performance.now() > deadline) throw new Error(`processes left: ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * Kills a host at a random moment: any time from its start, while its servers start (after
 * the host was created), or once they are up (when their daemons are sure to run). Returns
 * whether it was the last: those trials must have had leftovers to reap.
 */
async function killAtRandom(host: StartedHost, random: () => number): Promise<boolean> {
  const phase = random();
  const ready = phase >= 0.6;
  const after = ready ? host.said('servers-ready') : phase >= 0.25 ? host.said('host-created') : undefined;
  await after;
  const delay = random() * (ready ? 300 : phase >= 0.25 ? 800 : 1500);
  await Promise.race([new Promise((resolve) => setTimeout(resolve, delay)), host.exited]);
  process.kill(host.child.pid!, 'SIGKILL');
  await host.exited;
  return ready;
}

/** A bound for a loaded 2-core machine: a scan and SIGKILL rounds take milliseconds when idle. */
const REAP_BOUND_MS = 5000;

describe('a host killed with SIGKILL', () => {
  it('leaves nothing once the next host has started on its data dir (no watchdog)', async () => {
    const random = seeded(20261202);
    const figures: number[] = [];
    let hadLeftovers = 0;
    let whenReady = 0;
    for (let trial = 0; trial < 12; trial++) {
      const dataDir = await tempDir();
      const first = startHost(dataDir, { watchdog: false });
      if (await killAtRandom(first, random)) whenReady++;
      if (processesWithEnv('SB_TRIAL', first.tag).length > 0) hadLeftovers++;
      const started = performance.now();
      const second = await Host.create({ dataDir, watchdog: false });
      try {
        const gone = await noneLeft(first.tag, REAP_BOUND_MS);
        figures.push(gone - started);
        expect(gone - started).toBeLessThan(REAP_BOUND_MS);
      } finally {
        await second.close();
      }
      // The dead host's record is gone with its processes.
      expect((await readdir(join(dataDir, 'processes'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    }
    // Killed once its servers were up, a host leaves its daemons for the next one to reap.
    expect(whenReady).toBeGreaterThan(2);
    expect(hadLeftovers).toBeGreaterThanOrEqual(whenReady);
    console.info(
      `second host's start → nothing left, ms (${hadLeftovers}/12 trials had leftovers):`,
      medianAndMax(figures),
    );
  }, 240_000);

  it('leaves nothing soon after its death, through its watchdog', async () => {
    const random = seeded(7);
    const figures: number[] = [];
    for (let trial = 0; trial < 8; trial++) {
      const dataDir = await tempDir();
      const host = startHost(dataDir, { watchdog: true });
      await killAtRandom(host, random);
      const died = performance.now();
      const gone = await noneLeft(host.tag, REAP_BOUND_MS);
      figures.push(gone - died);
    }
    console.info('host death → nothing left (watchdog), ms:', medianAndMax(figures));
  }, 240_000);

  it('is not reaped by a second host while it lives', async () => {
    const dataDir = await tempDir();
    const first = startHost(dataDir, { watchdog: false });
    await first.said('servers-ready');
    const before = processesWithEnv('SB_TRIAL', first.tag);
    expect(before.length).toBe(2 * 5); // two servers with four daemons each
    const second = await Host.create({ dataDir, watchdog: false });
    await second.close();
    expect(before.filter((pid) => !running(pid))).toEqual([]);
    // Once it is dead, the next host does reap it.
    process.kill(first.child.pid!, 'SIGKILL');
    await first.exited;
    const third = await Host.create({ dataDir, watchdog: false });
    await third.close();
    expect(processesWithEnv('SB_TRIAL', first.tag)).toEqual([]);
  }, 120_000);
});

describe('a host process that exits without closing', () => {
  it('takes its stdio servers and their daemons with it', async () => {
    const host = startHost(await tempDir(), { watchdog: false, exitWhenReady: true });
    await host.said('servers-ready');
    await host.exited;
    expect(host.child.exitCode).toBe(0);
    await noneLeft(host.tag, REAP_BOUND_MS);
  }, 120_000);
});
