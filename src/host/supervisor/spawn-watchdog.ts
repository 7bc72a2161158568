import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { TREE_MARK_VAR } from '../../client/transports/process-tree.js';

/**
 * One small watchdog per host (not per server): a POSIX `sh` in a session of its own that
 * holds the reading end of a pipe from the host. When the host's end closes (the host closed,
 * exited or was killed, SIGKILL included), it kills every process whose starting environment
 * carries the host's marker prefix, in rounds until none is left, and exits. So a host killed
 * with SIGKILL leaves nothing running even before another host starts on its data dir (which
 * would reap by the ledger, `leftover-reaper.ts`).
 *
 * Why `sh`: the watchdog must outlive the host and stay cheap; a Node process costs ~40 MB of
 * memory for the host's whole life, `sh` about 1 MB (`bench/process-tree.bench.ts`). It finds
 * processes by the marker alone, as `process-tree.ts` layer 2 does (`grep -z` matches
 * `SWITCHBOARD_PROCESS_TREE=<host>/` at the start of an environment entry, as `envValueIn`
 * does): the ledger reaper, which checks start times and the recorded servers too, owns the
 * complete rules; `test/host/spawn-watchdog.test.ts` holds the two to the same processes. It
 * signals a pid right after reading its environment; a pid recycled in that instant would take
 * a full turn of the pid space.
 */
const SCRIPT = `
cd / || exit 0
while read -r _; do :; done
rounds=0
while [ "$rounds" -lt 50 ]; do
  pids=
  for file in $(grep -l -z -a -E -e "^$1" /proc/[0-9]*/environ 2>/dev/null); do
    pid=\${file#/proc/}
    pids="$pids \${pid%/environ}"
  done
  [ -z "$pids" ] && exit 0
  kill -9 $pids 2>/dev/null
  rounds=$((rounds + 1))
  sleep 0.1
done
`;

/** The name the watchdog runs under (its `$0`), as `ps` shows it. */
export const WATCHDOG_NAME = 'switchboard-watchdog';

export class SpawnWatchdog {
  private constructor(private readonly child: ChildProcess) {}

  /**
   * Starts the watchdog for the trees whose marker begins with `markPrefix` (hex and `/`
   * only). Undefined when it could not start (no `sh`): the ledger still reaps at the next start.
   */
  static start(markPrefix: string): SpawnWatchdog | undefined {
    if (!/^[0-9a-f]+\/$/.test(markPrefix)) throw new Error(`not a marker prefix: ${markPrefix}`);
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', SCRIPT, WATCHDOG_NAME, `${TREE_MARK_VAR}=${markPrefix}`], {
        stdio: ['pipe', 'ignore', 'ignore'],
        // Its own session: a signal to the host's group (a terminal's ^C) does not reach it.
        detached: true,
        // Without the marker itself, and with nothing else of ours.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
    } catch {
      return undefined;
    }
    child.once('error', () => undefined);
    child.stdin?.on('error', () => undefined); // EPIPE if it died: nothing to do
    // Neither the process nor the pipe keeps this process alive.
    child.unref();
    (child.stdin as Socket | null)?.unref?.();
    return new SpawnWatchdog(child);
  }

  /** The watchdog's pid. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Closes the pipe: the watchdog ends what is left of the host's trees (nothing, after a clean stop) and exits. */
  stop(): void {
    this.child.stdin?.end();
  }
}
