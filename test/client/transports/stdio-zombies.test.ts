import { execFile, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { misbehavingBin, pidOneClientBin } from '../../fixtures/paths.js';

/**
 * A stdio server's tree is ended even where its dead processes are never reaped: a host that
 * is a container's pid 1 (no init) adopts every orphan and, being Node, reaps none, so a
 * helper that died after its server stays a zombie in the server's process group. A zombie is
 * dead: close() and the reaping after a crash must not wait for it (they waited for their
 * whole deadline, then left the tree recorded as not ended). Run in a PID namespace of its
 * own (`unshare`) where the client is pid 1; skipped where one cannot be made.
 */
const UNSHARE = ['-rpf', '--mount-proc', '--kill-child'];
const namespaces =
  process.platform === 'linux' &&
  spawnSync('unshare', [...UNSHARE, 'true'], { timeout: 10_000 }).status === 0;

interface Outcome {
  readonly ended: boolean;
  readonly ms: number;
  readonly left: number;
}

function asPidOne(mode: string, kase: 'close' | 'death'): Promise<Outcome> {
  const args = [
    ...UNSHARE,
    process.execPath,
    pidOneClientBin,
    '--server-bin',
    misbehavingBin,
    '--mode',
    mode,
  ];
  return new Promise((resolve, reject) => {
    // The namespace ends with its pid 1, and every process in it: nothing can be left behind.
    execFile('unshare', [...args, '--case', kase], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim()) as Outcome);
    });
  });
}

describe.skipIf(!namespaces)('a stdio server whose dead helpers stay zombies (the host is pid 1)', () => {
  for (const mode of ['grandchild', 'daemons']) {
    it(`close() ends the tree without waiting for the zombies (${mode})`, async () => {
      const outcome = await asPidOne(mode, 'close');
      expect(outcome.left).toBe(0);
      // Ended, not given up on: the spawn ledger forgets it.
      expect(outcome.ended).toBe(true);
      // stdin 300 ms + SIGTERM; the 2 s TERM grace and the 5 s kill deadline are what a wait for the zombies took.
      expect(outcome.ms).toBeLessThan(2000);
    });
  }

  it('the tree of a server that died is ended without waiting for the zombies (pipe-holder)', async () => {
    const outcome = await asPidOne('pipe-holder', 'death');
    expect(outcome.left).toBe(0);
    expect(outcome.ended).toBe(true);
    expect(outcome.ms).toBeLessThan(2000);
  });
});
