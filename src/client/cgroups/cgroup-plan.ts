import type { SandboxLimits } from '../../core/config/sandbox-config.js';

/**
 * The pure half of a sandbox's cgroup (`cgroup-limits.ts` does the I/O): which controllers its
 * limits need, what to write into each, and where this process's cgroups are, read from
 * `/proc/self/mountinfo` and `/proc/self/cgroup` (proc(5), cgroups(7)).
 *
 * A cgroup bounds the whole tree and binds root: `pids.max` ends a fork bomb where
 * RLIMIT_NPROC, from which the kernel exempts root, does not; `memory.max` bounds the tree's
 * memory where RLIMIT_DATA bounds each process alone; `cpu.max` bounds its CPU share, which no
 * rlimit does. Both hierarchies are served: cgroup v2 (one tree, `pids.max`, `memory.max`,
 * `cpu.max`) and v1 (a tree per controller, `pids.max`, `memory.limit_in_bytes`,
 * `cpu.cfs_quota_us`).
 */

export type Controller = 'pids' | 'memory' | 'cpu';

/** A mounted cgroup hierarchy. */
export interface CgroupMount {
  readonly version: 1 | 2;
  /** Where it is mounted here. */
  readonly mountPoint: string;
  /** Which cgroup the mount shows at its mount point (`/` unless a container mounts a part). */
  readonly root: string;
  /** v1: the controllers it carries (from its super options); v2: empty (read cgroup.controllers). */
  readonly controllers: readonly string[];
}

/** One line of /proc/self/cgroup: hierarchy id, controllers (v1), the cgroup's path. */
export interface OwnCgroup {
  readonly id: string;
  readonly controllers: readonly string[];
  readonly path: string;
}

/** The controllers `limits` need. */
export function neededControllers(limits: SandboxLimits): Controller[] {
  return [
    ...(limits.processes !== undefined ? (['pids'] as const) : []),
    ...(limits.memoryMb !== undefined ? (['memory'] as const) : []),
    ...(limits.cpus !== undefined ? (['cpu'] as const) : []),
  ];
}

/** CFS bandwidth period: 100 ms, the kernel's default. */
const PERIOD_US = 100_000;

/**
 * The files to write for `controller` in a cgroup of `version`, in order. Optional ones (swap,
 * where swap accounting is off) may be missing and are skipped.
 */
export function limitFiles(
  version: 1 | 2,
  controller: Controller,
  limits: SandboxLimits,
): { readonly file: string; readonly value: string; readonly optional?: boolean }[] {
  if (controller === 'pids') return [{ file: 'pids.max', value: String(limits.processes) }];
  if (controller === 'memory') {
    const bytes = String((limits.memoryMb ?? 0) * 1024 * 1024);
    return version === 2
      ? [
          { file: 'memory.max', value: bytes },
          // Swap would let the tree hold more than memory.max.
          { file: 'memory.swap.max', value: '0', optional: true },
        ]
      : [
          { file: 'memory.limit_in_bytes', value: bytes },
          { file: 'memory.memsw.limit_in_bytes', value: bytes, optional: true },
        ];
  }
  const quota = String(Math.max(1000, Math.round((limits.cpus ?? 1) * PERIOD_US)));
  return version === 2
    ? [{ file: 'cpu.max', value: `${quota} ${PERIOD_US}` }]
    : [
        { file: 'cpu.cfs_period_us', value: String(PERIOD_US) },
        { file: 'cpu.cfs_quota_us', value: quota },
      ];
}

/** The cgroup mounts of a mountinfo text (proc(5): "… root mountpoint options … - fstype source superoptions"). */
export function parseMountinfo(text: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fstype, , superOptions = ''] = after.split(' ');
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    const root = unescapeMount(fields[3] ?? '/');
    const mountPoint = unescapeMount(fields[4] ?? '');
    if (!mountPoint) continue;
    out.push({
      version: fstype === 'cgroup2' ? 2 : 1,
      mountPoint,
      root,
      controllers: fstype === 'cgroup' ? superOptions.split(',') : [],
    });
  }
  return out;
}

/** The lines of /proc/self/cgroup ("hierarchy-ID:controller-list:cgroup-path"). */
export function parseProcCgroup(text: string): OwnCgroup[] {
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const first = line.indexOf(':');
      const second = line.indexOf(':', first + 1);
      if (first < 0 || second < 0) return [];
      const controllers = line.slice(first + 1, second);
      return [
        {
          id: line.slice(0, first),
          controllers: controllers ? controllers.split(',') : [],
          path: line.slice(second + 1),
        },
      ];
    });
}

/**
 * The directory of this process's cgroup in `mount`, or undefined when the mount does not show
 * it (a container's mount of another part of the tree).
 */
export function ownDirectory(mount: CgroupMount, own: OwnCgroup): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (root !== '' && own.path !== root && !own.path.startsWith(`${root}/`)) return undefined;
  const rest = own.path.slice(root.length);
  return rest === '' || rest === '/' ? mount.mountPoint : `${mount.mountPoint}${rest}`;
}

/** Where `controller` is, as v1 sees it: its mount and this process's line there. */
export function v1Place(
  mounts: readonly CgroupMount[],
  owns: readonly OwnCgroup[],
  controller: Controller,
): { readonly mount: CgroupMount; readonly own: OwnCgroup } | undefined {
  const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
  const own = owns.find((o) => o.controllers.includes(controller));
  return mount && own ? { mount, own } : undefined;
}

/**
 * A cgroup name for one server: the host's pid and start time first, so a later host can tell
 * the leaves of a dead host (whose processes are ours to end) from those of a live one, even
 * once its pid has been handed to another process.
 */
export function leafName(host: HostMark, server: string, serial: number): string {
  return `switchboard-${host.pid}.${host.startTime}-${server.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60)}-${serial}`;
}

/** A host as a leaf name carries it. */
export interface HostMark {
  readonly pid: number;
  /** Clock ticks after boot (`/proc/<pid>/stat` field 22); 0 where unknown. */
  readonly startTime: number;
}

/** The host a leaf name carries, or undefined for a name not ours. */
export function leafOwner(name: string): HostMark | undefined {
  const match = /^switchboard-(\d+)(?:\.(\d+))?-/.exec(name);
  return match ? { pid: Number(match[1]), startTime: Number(match[2] ?? 0) } : undefined;
}

/**
 * The cgroup a server is tracked by where it has no sandbox cgroup: one with no controller,
 * only membership. cgroup v2: beside this process in its own cgroup (a cgroup with no
 * controllers enabled for its children may hold processes and children both). v1: in the pids
 * hierarchy, or systemd's named one, under this process's cgroup there. Undefined where none
 * is mounted; whether it is writable is the caller's to find out.
 */
export function trackingParent(
  mounts: readonly CgroupMount[],
  owns: readonly OwnCgroup[],
): { readonly dir: string; readonly version: 1 | 2 } | undefined {
  const v2 = mounts.find((m) => m.version === 2);
  const own2 = owns.find((o) => o.id === '0' && o.controllers.length === 0);
  const dir2 = v2 && own2 && ownDirectory(v2, own2);
  if (dir2) return { dir: dir2, version: 2 };
  for (const name of ['pids', 'name=systemd']) {
    const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(name));
    const own = owns.find((o) => o.controllers.includes(name));
    const dir = mount && own && ownDirectory(mount, own);
    if (dir) return { dir, version: 1 };
  }
  return undefined;
}

/** mountinfo escapes space, tab, newline and backslash as octal (\040 …). */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
