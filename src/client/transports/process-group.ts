import type { ChildProcess } from 'node:child_process';

/**
 * Process-group control for stdio servers. Each server runs as the leader of its own group
 * (spawned `detached`), so a signal to the group reaches `sh -c` wrappers and grandchildren
 * too. The SDK's stdio transport signals only the direct child, which leaves orphans (#2023).
 */

const live = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group so it is killed if this process exits without closing it. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: SIGKILL is the only thing that fits.
    process.on('exit', () => {
      for (const id of live) signalGroup(id, 'SIGKILL');
    });
  }
}

export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

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

/** Polls until no process of the group is left, or the time is up. */
export async function waitForGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
  return true;
}
