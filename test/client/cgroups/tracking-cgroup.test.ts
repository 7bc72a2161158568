import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMountinfo, parseProcCgroup, trackingParent } from '../../../src/client/cgroups/cgroup-plan.js';
import { readProcess } from '../../../src/client/transports/process-table.js';
import { killSurvivors, running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';

/**
 * The cgroup an unsandboxed stdio server is tracked by, seen from the outside: a dead host's
 * leaf is emptied and removed by the next host (`reapDeadHostCgroups`, which a host runs as it
 * opens its spawn ledger), a live host's is left alone. Runs where this process may make
 * cgroups beside itself (root, or a delegated cgroup); elsewhere it says so and skips.
 */
function trackingDir(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const parent = trackingParent(
    parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')),
    parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8')),
  );
  try {
    if (parent) accessSync(parent.dir, constants.W_OK);
    return parent?.dir;
  } catch {
    return undefined;
  }
}

const parent = trackingDir();
if (!parent) console.warn('tracking-cgroup tests skipped: no cgroup can be made beside this process here');
const started: number[] = [];

afterAll(() => {
  killSurvivors(started);
});

/** A process that lived and died: its pid and start time name a dead host. */
async function deadHost(): Promise<{ pid: number; startTime: number }> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 200)']);
  const pid = child.pid!;
  const startTime = readProcess(pid)!.startTime;
  await new Promise((resolve) => child.once('exit', resolve));
  return { pid, startTime };
}

/** A sleeper that joins `leaf` (made by the shell) and says its pid. */
function sleeperIn(leaf: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const script = `mkdir "${leaf}" && echo $$ > "${leaf}/cgroup.procs" && echo $$ && exec sleep 1000 >/dev/null`;
    const child = spawn('setsid', ['sh', '-c', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    child.stdout.once('data', (chunk: Buffer) => {
      const pid = Number(chunk.toString().trim());
      started.push(pid);
      resolve(pid);
    });
    child.once('error', reject);
  });
}

/** Runs reapDeadHostCgroups in a fresh process, as a host that starts does. */
function reapInNewProcess(): Promise<void> {
  const code = `import('${join(process.cwd(), 'src/client/cgroups/cgroup-limits.ts')}').then((m) => m.reapDeadHostCgroups())`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '-e', code], (error, _out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(),
    );
  });
}

describe.skipIf(!parent)('tracking cgroups of hosts that died', () => {
  it("ends what a dead host's leaf holds and removes it; a live host's leaf is left", async () => {
    const dead = await deadHost();
    const deadLeaf = join(parent!, `switchboard-${dead.pid}.${dead.startTime}-escaped-1`);
    const self = readProcess(process.pid)!;
    const liveLeaf = join(parent!, `switchboard-${process.pid}.${self.startTime}-ours-1`);
    const orphan = await sleeperIn(deadLeaf);
    const ours = await sleeperIn(liveLeaf);
    try {
      await reapInNewProcess();
      await eventually(
        () => running(orphan),
        (alive) => !alive,
        { what: "saw the dead host's leftover ended", timeoutMs: 10_000 },
      );
      expect(running(ours), "a live host's process").toBe(true);
      await eventually(
        () => existsSync(deadLeaf),
        (exists) => !exists,
        { what: "saw the dead host's leaf removed", timeoutMs: 10_000 },
      );
      expect(existsSync(liveLeaf)).toBe(true);
    } finally {
      killSurvivors([orphan, ours]);
      // The leaf can go once its sleeper is gone.
      await eventually(
        () => {
          try {
            rmdirSync(liveLeaf);
          } catch {
            // its process is still being torn down
          }
          return existsSync(liveLeaf);
        },
        (exists) => !exists,
        { what: 'removed the test leaf', timeoutMs: 10_000 },
      );
    }
  });
});
