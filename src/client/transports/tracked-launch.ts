import { accessSync, constants } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import { createTrackingCgroup, type SandboxCgroup } from '../cgroups/cgroup-limits.js';

/**
 * An unsandboxed stdio server started inside a cgroup of its own, where the host may make one
 * (`createTrackingCgroup`): `/bin/sh` writes its pid into the cgroup, then becomes the server
 * (`exec`, the same pid and start time), so every process of the server's tree is born in the
 * cgroup and stays there whatever it does to its environment, session or parent — which the
 * other links of `process-tree.ts` cannot follow all at once. Best effort: where the cgroup
 * cannot be made or joined, the server starts all the same and its tree is found by the other
 * links. A command that is not found is not wrapped, so the spawn fails with its own ENOENT.
 */

/** Joins every `cgroup.procs` given before `--` it can, then becomes the rest of the command line. */
const TRACK_SCRIPT =
  'for f; do [ "$f" = -- ] && break; echo $$ 2>/dev/null > "$f"; shift; done; shift; exec "$@"';

export interface TrackedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cgroup: SandboxCgroup;
}

/** The launch of `command` inside a new tracking cgroup, or undefined where there is none. */
export function trackedLaunch(launch: {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}): TrackedLaunch | undefined {
  if (process.platform !== 'linux') return undefined;
  const shell = executable('/bin/sh') ?? executable('/usr/bin/sh');
  if (!shell || !found(launch.command, launch.env.PATH ?? '', launch.cwd)) return undefined;
  const cgroup = createTrackingCgroup(launch.name || basename(launch.command));
  if (!cgroup) return undefined;
  return {
    command: shell,
    args: ['-c', TRACK_SCRIPT, 'switchboard-server', ...cgroup.procs, '--', launch.command, ...launch.args],
    cgroup,
  };
}

function found(command: string, path: string, cwd: string | undefined): boolean {
  if (command.includes('/')) return executable(resolve(cwd ?? process.cwd(), command)) !== undefined;
  return path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)) !== undefined);
}

function executable(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}
