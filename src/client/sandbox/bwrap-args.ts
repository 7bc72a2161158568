import type { SandboxLimits, SandboxNetwork } from '../../core/config/sandbox-config.js';
import { SwitchboardError } from '../../core/errors.js';
import type { Controller } from '../cgroups/cgroup-plan.js';
import { bridgeCommand, SANDBOX_NET_DIR } from './net-bridge.js';
import { STATE_DIR_VAR } from './sandbox-env.js';

/**
 * A sandboxed server's launch as bubblewrap's command line: the pure half of the sandbox
 * (`sandbox-launch.ts` gathers what it needs from the file system). Every path it is given is
 * absolute and already resolved; it reads nothing and decides everything:
 *
 * - **namespaces**: user, mount, pid, ipc, uts and cgroup always; network unless the profile
 *   shares the host's. A new network namespace holds only its own loopback, so nothing leaves
 *   it — not even for the host's 127.0.0.1. A filtered network (`loopback`, `hosts`) binds the
 *   host's proxy sockets read-only at /run/switchboard-net and starts the relay
 *   (`net-bridge.ts`) first, which starts the server.
 * - **the file system** is empty but for what is granted: the system's programs and libraries
 *   and a few files of /etc (read-only), the program's own directories (read-only), the
 *   profile's `read` (read-only) and `write` (writable), the server's state directory
 *   (writable, its HOME), a private /tmp, /proc of its own pid namespace and a minimal /dev.
 *   Mounts are ordered parents first, so a writable directory inside a read-only one (or the
 *   reverse) gets what its own grant says.
 * - **its end**: `--die-with-parent` ends the sandbox with the process that started it, and the
 *   pid namespace ends every process in it with its init; the host's process-tree tracking
 *   still sees each of them (pids and environments are visible from outside).
 * - **no nested user namespaces** (`--disable-userns`, bubblewrap 0.8+): a nested one would give
 *   the server the capabilities to set up mounts of its own.
 * - **limits**: a cgroup of its own where the host could make one (`cgroup-limits.ts`), which
 *   the launch joins before bubblewrap starts (`/bin/sh` writes its pid into `cgroup.procs`,
 *   sets RLIMIT_DATA and RLIMIT_CPU with `ulimit`, then `exec`s bwrap), so the whole tree is
 *   bounded, root's included. Without one, `prlimit` (util-linux) inside: RLIMIT_DATA,
 *   RLIMIT_NPROC (counted per user namespace since Linux 5.14, so it bounds the sandbox alone,
 *   but not for root) and RLIMIT_CPU. `planWarnings` says what does not hold.
 * - **launcher caches**: the user's package cache laid read-only under the server's own with
 *   overlayfs (bubblewrap 0.9+, `launcher-cache.ts`).
 *
 * No `--new-session`: the server is already spawned in a session of its own without a
 * controlling terminal (`setsid`), so the TIOCSTI injection that option guards against has no
 * terminal to reach.
 */

/** A system path as it is on the host: a directory (bound read-only) or a symlink (recreated). */
export type SystemEntry =
  | { readonly path: string; readonly kind: 'dir' | 'file' }
  | { readonly path: string; readonly kind: 'symlink'; readonly target: string };

/** Everything a launch needs, resolved (see `sandbox-launch.ts`). */
export interface SandboxLaunch {
  /** The bubblewrap executable. */
  readonly bwrap: string;
  /** `prlimit`, needed when any limit is set. */
  readonly prlimit?: string;
  /** Whether this bubblewrap knows `--disable-userns` (0.8.0 and later). */
  readonly disableUserns: boolean;
  /** The server's program and arguments, as it would run unsandboxed. */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Its working directory; default its state directory. */
  readonly cwd?: string;
  /** Its own writable directory, which is also its HOME. */
  readonly stateDir: string;
  readonly system: readonly SystemEntry[];
  /** Paths readable (read-only): the program's directories, the profile's `read`, the roots. */
  readonly read: readonly string[];
  /** Paths writable: the profile's `write`. */
  readonly write: readonly string[];
  readonly network: SandboxNetwork;
  readonly limits: SandboxLimits;
  /** A filtered network: the host's socket directory, the Node that runs the relay, the ports it mirrors. */
  readonly relay?: {
    readonly socketDir: string;
    readonly node: string;
    readonly mirrored: readonly number[];
  };
  /** The sandbox's cgroup: the `cgroup.procs` files to join (with `/bin/sh`) and what it holds. */
  readonly cgroup?: {
    readonly shell: string;
    readonly procs: readonly string[];
    readonly held: readonly Controller[];
  };
  /** Caches laid read-only under the server's own (overlayfs, bubblewrap 0.9+). */
  readonly overlays?: readonly {
    readonly lower: string;
    readonly upper: string;
    readonly work: string;
    readonly inside: string;
  }[];
}

/**
 * The launch's first program when the sandbox has a cgroup: joins each cgroup given before
 * `--` (writing its own pid into `cgroup.procs`), then becomes the rest of the command line.
 * Fails (status 125) rather than start outside its cgroup.
 */
export const JOIN_CGROUP_SCRIPT =
  'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"';

/** What to spawn instead of the server's own command. */
export interface SandboxedCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The command line that runs `launch` inside bubblewrap. Throws SANDBOX_UNAVAILABLE for a cwd nothing grants. Pure. */
export function bwrapCommand(launch: SandboxLaunch): SandboxedCommand {
  const cwd = launch.cwd ?? launch.stateDir;
  const granted = [launch.stateDir, ...launch.read, ...launch.write, ...launch.system.map((s) => s.path)];
  if (!granted.some((path) => within(cwd, path))) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `The working directory "${cwd}" is not inside anything the sandbox grants, so the server could not start in it. Add it to "sandbox.read" or "sandbox.write", or remove "cwd".`,
      { details: { reason: 'path', path: cwd } },
    );
  }
  const args: string[] = [
    '--unshare-user',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(launch.network.kind === 'host' ? [] : ['--unshare-net']),
    ...(launch.disableUserns ? ['--disable-userns'] : []),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  for (const entry of launch.system) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind-try', entry.path, entry.path);
  }
  for (const mount of mountOrder(launch))
    args.push(mount.writable ? '--bind' : '--ro-bind', mount.path, mount.path);
  for (const o of launch.overlays ?? [])
    args.push('--overlay-src', o.lower, '--overlay', o.upper, o.work, o.inside);
  // Read-only: the sandbox may connect to the sockets, not replace them.
  if (launch.relay) args.push('--ro-bind', launch.relay.socketDir, SANDBOX_NET_DIR);
  args.push('--chdir', cwd, '--');
  // With a cgroup, the shell that joins it sets the per-process rlimits (an exec less), and the
  // process limit is its pids.max; RLIMIT_NPROC, which must be set inside the user namespace to
  // count the sandbox alone, is needed only where no cgroup holds the processes.
  const held = new Set(launch.cgroup?.held ?? []);
  const limits = launch.cgroup
    ? prlimitArgs({ ...(!held.has('pids') && { processes: launch.limits.processes }) })
    : prlimitArgs(launch.limits);
  if (limits.length > 0) {
    if (!launch.prlimit) {
      throw new SwitchboardError(
        'SANDBOX_UNAVAILABLE',
        'The sandbox has resource limits, and "prlimit" (util-linux) that sets them was not found. Install util-linux, or remove "sandbox.limits".',
        { details: { reason: 'prlimit-missing' } },
      );
    }
    args.push(launch.prlimit, ...limits, '--');
  }
  if (launch.relay) {
    const { node, mirrored } = launch.relay;
    args.push(...bridgeCommand(node, SANDBOX_NET_DIR, mirrored, launch.command, launch.args));
  } else args.push(launch.command, ...launch.args);
  const joined = launch.cgroup
    ? {
        command: launch.cgroup.shell,
        args: [
          '-c',
          `${shellLimits(launch.limits)}${JOIN_CGROUP_SCRIPT}`,
          'sandbox-cgroup',
          ...launch.cgroup.procs,
          '--',
          launch.bwrap,
          ...args,
        ],
      }
    : { command: launch.bwrap, args };
  return {
    ...joined,
    // Its home is its own directory: ~/.ssh, ~/.aws and the like are not even paths there.
    env: { ...launch.env, HOME: launch.stateDir, TMPDIR: '/tmp', [STATE_DIR_VAR]: launch.stateDir },
  };
}

interface Mount {
  readonly path: string;
  readonly writable: boolean;
}

/**
 * The granted paths, each once (writable wins), parents before children, so each path's own
 * grant is the last mount on it. The state directory is writable.
 */
export function mountOrder(launch: Pick<SandboxLaunch, 'read' | 'write' | 'stateDir'>): Mount[] {
  const byPath = new Map<string, boolean>();
  for (const path of launch.read) if (!byPath.has(path)) byPath.set(path, false);
  for (const path of [...launch.write, launch.stateDir]) byPath.set(path, true);
  return [...byPath]
    .map(([path, writable]) => ({ path, writable }))
    .sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The per-process rlimits as the joining shell sets them (`ulimit` sets soft and hard alike). */
export function shellLimits(limits: SandboxLimits): string {
  return [
    ...(limits.memoryMb !== undefined ? [`ulimit -d ${limits.memoryMb * 1024} || exit 125; `] : []),
    ...(limits.cpuSeconds !== undefined ? [`ulimit -t ${limits.cpuSeconds} || exit 125; `] : []),
  ].join('');
}

/** prlimit's options for the limits (soft and hard alike, so the server cannot raise them). */
export function prlimitArgs(limits: SandboxLimits): string[] {
  const out: string[] = [];
  if (limits.memoryMb !== undefined) {
    const bytes = limits.memoryMb * 1024 * 1024;
    out.push(`--data=${bytes}:${bytes}`);
  }
  if (limits.processes !== undefined) out.push(`--nproc=${limits.processes}:${limits.processes}`);
  if (limits.cpuSeconds !== undefined) out.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`);
  return out;
}

/** What a launch cannot hold to, said before it starts (logged, not fatal). Pure. */
export function planWarnings(
  launch: Pick<SandboxLaunch, 'limits' | 'cgroup'>,
  uid: number | undefined,
): string[] {
  const held = new Set(launch.cgroup?.held ?? []);
  const { processes, cpus } = launch.limits;
  const out: string[] = [];
  if (uid === 0 && processes !== undefined && !held.has('pids'))
    out.push(
      `the sandbox's process limit (${processes}) does not hold: no cgroup could be made for it (no writable pids controller), and the kernel exempts root from RLIMIT_NPROC. Run the host as an ordinary user, or where it may manage cgroups (docs/sandbox.md).`,
    );
  if (cpus !== undefined && !held.has('cpu'))
    out.push(
      `the sandbox's CPU share (${cpus} CPU) does not hold: no cgroup with the cpu controller could be made for it (docs/sandbox.md).`,
    );
  return out;
}

/** The limits in force, in words: which the cgroup holds for the tree, which rlimits hold per process. Pure. */
export function describeLimits(
  launch: Pick<SandboxLaunch, 'limits' | 'cgroup'>,
  uid: number | undefined,
): string {
  const { memoryMb, processes, cpuSeconds, cpus } = launch.limits;
  const held = new Set(launch.cgroup?.held ?? []);
  const tree = [
    ...(held.has('pids') ? [`${processes} processes`] : []),
    ...(held.has('memory') ? [`${memoryMb} MiB`] : []),
    ...(held.has('cpu') ? [`${cpus} CPU`] : []),
  ];
  const each = [
    ...(!held.has('pids') && processes !== undefined && uid !== 0
      ? [`${processes} processes (RLIMIT_NPROC)`]
      : []),
    ...(!held.has('memory') && memoryMb !== undefined
      ? [`${memoryMb} MiB data per process (RLIMIT_DATA)`]
      : []),
    ...(cpuSeconds !== undefined ? [`${cpuSeconds} s CPU per process (RLIMIT_CPU)`] : []),
  ];
  const parts = [
    ...(tree.length > 0 ? [`cgroup: ${tree.join(', ')} for the whole tree`] : []),
    ...(each.length > 0 ? [`rlimits: ${each.join(', ')}`] : []),
  ];
  return parts.length > 0 ? `limits: ${parts.join('; ')}` : 'no limits';
}

/** True when `path` is `base` or lies below it (both absolute and normalized). */
export function within(path: string, base: string): boolean {
  if (base === '/') return path.startsWith('/');
  return path === base || path.startsWith(`${base}/`);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
