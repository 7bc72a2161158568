import type { ChildProcess } from 'node:child_process';

/**
 * Process-group control for stdio servers. Each server runs as the leader of its own group
 * (spawned `detached`), so a signal to the group reaches `sh -c` wrappers and grandchildren
 * too. The SDK's stdio transport signals only the direct child, which leaves orphans (#2023).
 * What leaves the group (`setsid`, `setpgid`) is found by `server-tree.ts`.
 */

/** Sends `signal` to every process in the group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the group exists. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Resolves when the child has exited (at once when it already has). */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}
