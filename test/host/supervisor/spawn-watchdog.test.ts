import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcess, readProcessTable } from '../../../src/client/transports/process-table.js';
import { selectTree, TREE_MARK_VAR } from '../../../src/client/transports/process-tree.js';
import { SpawnWatchdog, WATCHDOG_NAME } from '../../../src/host/supervisor/spawn-watchdog.js';
import { killSurvivors, running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';

/**
 * The watchdog (a `sh` script) finds a dead host's processes by its marker as the ledger's
 * rules (`process-tree.ts`) do: both are run over the same processes, ours and decoys that
 * only look like ours, and must pick the same ones.
 */
const started: ChildProcess[] = [];
afterEach(() => {
  killSurvivors(started.splice(0).map((c) => c.pid!));
});

function sleeper(env: Record<string, string>, detached = false): Promise<number> {
  const child = spawn('sleep', ['60'], {
    stdio: 'ignore',
    detached,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  started.push(child);
  return new Promise((resolve) => child.once('spawn', () => resolve(child.pid!)));
}

describe('the spawn watchdog', () => {
  it('kills, once its host goes, exactly what the ledger rules call the host’s', async () => {
    const hostId = randomBytes(16).toString('hex');
    const other = randomBytes(16).toString('hex');
    const ours = [
      await sleeper({ [TREE_MARK_VAR]: `${hostId}/a1` }),
      await sleeper({ [TREE_MARK_VAR]: `${hostId}/b2`, X: '1' }, true), // in a session of its own
    ];
    const decoys = [
      await sleeper({ [TREE_MARK_VAR]: `${hostId}0/a1` }), // a longer id that begins the same
      await sleeper({ OTHER: `x${TREE_MARK_VAR}=${hostId}/a1` }), // not at the start of an entry
      await sleeper({ [TREE_MARK_VAR]: `${other}/a1` }),
      await sleeper({ [`${TREE_MARK_VAR}X`]: `${hostId}/a1` }),
    ];
    const all = [...ours, ...decoys];
    const table = readProcessTable();
    const byRules = selectTree(table, { roots: [], mark: { prefix: `${hostId}/` }, notBefore: 0 })
      .map((e) => e.pid)
      .filter((pid) => all.includes(pid));
    expect(byRules.sort()).toEqual([...ours].sort());

    const watchdog = SpawnWatchdog.start(`${hostId}/`)!;
    const pid = watchdog.pid!;
    expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')).toContain(WATCHDOG_NAME);
    // It waits without doing anything until the host's end of its pipe closes.
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
    console.info(`watchdog resident memory: ${rssKiB} KiB`);
    expect(rssKiB).toBeLessThan(8 * 1024);
    expect(all.filter(running)).toEqual(all);
    watchdog.stop();
    await eventually(
      () => running(pid),
      (alive) => !alive,
      { what: 'saw the watchdog exit', timeoutMs: 10_000 },
    );
    const killed = all.filter((p) => !running(p));
    expect(killed.sort()).toEqual(byRules.sort());
    expect(readProcess(decoys[0]!)).toBeDefined();
  });
});
