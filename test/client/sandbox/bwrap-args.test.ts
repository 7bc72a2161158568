import { describe, expect, it } from 'vitest';
import {
  bwrapCommand,
  describeLimits,
  JOIN_CGROUP_SCRIPT,
  mountOrder,
  planWarnings,
  prlimitArgs,
  type SandboxLaunch,
} from '../../../src/client/sandbox/bwrap-args.js';
import { isSwitchboardError } from '../../../src/core/errors.js';

const base: SandboxLaunch = {
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  disableUserns: true,
  command: '/usr/bin/node',
  args: ['/opt/srv/index.js', '--flag'],
  env: { PATH: '/usr/bin', HOME: '/home/me', SECRET_FREE: '1' },
  stateDir: '/data/sandbox/probe',
  system: [
    { path: '/usr', kind: 'dir' },
    { path: '/bin', kind: 'symlink', target: 'usr/bin' },
    { path: '/etc/hosts', kind: 'file' },
  ],
  read: ['/opt/srv'],
  write: [],
  network: { kind: 'none' },
  limits: {},
};

/** The values following each occurrence of `flag` (n of them each). */
function valuesOf(args: readonly string[], flag: string, n = 1): string[][] {
  const out: string[][] = [];
  args.forEach((a, i) => {
    if (a === flag) out.push(args.slice(i + 1, i + 1 + n) as string[]);
  });
  return out;
}

describe('bwrapCommand', () => {
  it('runs the program under bwrap with every namespace but the network shared only when asked', () => {
    const { command, args } = bwrapCommand(base);
    expect(command).toBe('/usr/bin/bwrap');
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-net',
      '--die-with-parent',
    ])
      expect(args).toContain(flag);
    expect(args).toContain('--disable-userns');
    expect(valuesOf(args, '--cap-drop')).toEqual([['ALL']]);
    // The program and its arguments come last, after the end of bwrap's options.
    expect(args.slice(args.lastIndexOf('--') + 1)).toEqual(['/usr/bin/node', '/opt/srv/index.js', '--flag']);
    const shared = bwrapCommand({ ...base, network: { kind: 'host' } }).args;
    expect(shared).not.toContain('--unshare-net');
    expect(bwrapCommand({ ...base, disableUserns: false }).args).not.toContain('--disable-userns');
  });

  it('binds the system read-only, recreates merged-/usr symlinks, and grants only what it is given', () => {
    const { args } = bwrapCommand({ ...base, write: ['/srv/out'] });
    expect(valuesOf(args, '--ro-bind-try', 2)).toEqual([
      ['/usr', '/usr'],
      ['/etc/hosts', '/etc/hosts'],
    ]);
    expect(valuesOf(args, '--symlink', 2)).toEqual([['usr/bin', '/bin']]);
    expect(valuesOf(args, '--ro-bind', 2)).toEqual([['/opt/srv', '/opt/srv']]);
    expect(valuesOf(args, '--bind', 2)).toEqual([
      ['/srv/out', '/srv/out'],
      ['/data/sandbox/probe', '/data/sandbox/probe'],
    ]);
    expect(valuesOf(args, '--tmpfs')).toEqual([['/tmp']]);
    // The private /tmp comes before any grant below it, or it would hide that grant.
    const tmp = bwrapCommand({ ...base, read: ['/tmp/granted'] }).args;
    expect(tmp.indexOf('/tmp')).toBeLessThan(tmp.indexOf('/tmp/granted'));
  });

  it('gives the server its state directory as HOME and a private TMPDIR', () => {
    const { env } = bwrapCommand(base);
    expect(env.HOME).toBe('/data/sandbox/probe');
    expect(env.TMPDIR).toBe('/tmp');
    expect(env.SECRET_FREE).toBe('1');
  });

  it('starts in the state directory by default, in cwd when a grant holds it, and refuses one none holds', () => {
    expect(valuesOf(bwrapCommand(base).args, '--chdir')).toEqual([['/data/sandbox/probe']]);
    expect(valuesOf(bwrapCommand({ ...base, cwd: '/opt/srv/sub' }).args, '--chdir')).toEqual([
      ['/opt/srv/sub'],
    ]);
    let caught: unknown;
    try {
      bwrapCommand({ ...base, cwd: '/home/me/project' });
    } catch (error) {
      caught = error;
    }
    expect(isSwitchboardError(caught, 'SANDBOX_UNAVAILABLE')).toBe(true);
    expect((caught as Error).message).toContain('"/home/me/project"');
    expect((caught as Error).message).toContain('sandbox.read');
  });

  it('sets limits through prlimit inside the sandbox, hard and soft alike', () => {
    const { args } = bwrapCommand({ ...base, limits: { memoryMb: 64, processes: 20, cpuSeconds: 30 } });
    const start = args.indexOf('/usr/bin/prlimit');
    expect(start).toBeGreaterThan(args.indexOf('--chdir'));
    expect(args.slice(start)).toEqual([
      '/usr/bin/prlimit',
      `--data=${64 * 1024 * 1024}:${64 * 1024 * 1024}`,
      '--nproc=20:20',
      '--cpu=30:30',
      '--',
      '/usr/bin/node',
      '/opt/srv/index.js',
      '--flag',
    ]);
    expect(prlimitArgs({})).toEqual([]);
    const { prlimit: _p, ...without } = base;
    expect(() => bwrapCommand({ ...without, limits: { processes: 5 } })).toThrow(/prlimit/);
  });

  it('with a cgroup, joins it first (sh), sets the per-process rlimits there, and leaves prlimit out', () => {
    const limits = { memoryMb: 64, processes: 20, cpuSeconds: 30 };
    const cgroup = {
      shell: '/bin/sh',
      procs: ['/cg/pids/x/cgroup.procs', '/cg/memory/x/cgroup.procs'],
      held: ['pids', 'memory'] as const,
    };
    const { command, args } = bwrapCommand({
      ...base,
      limits,
      cgroup: { ...cgroup, held: [...cgroup.held] },
    });
    expect(command).toBe('/bin/sh');
    expect(args[0]).toBe('-c');
    expect(args[1]).toBe(
      `ulimit -d ${64 * 1024} || exit 125; ulimit -t 30 || exit 125; ${JOIN_CGROUP_SCRIPT}`,
    );
    expect(args.slice(2, 6)).toEqual(['sandbox-cgroup', ...cgroup.procs, '--']);
    expect(args[6]).toBe('/usr/bin/bwrap');
    expect(args).not.toContain('/usr/bin/prlimit');
    // A cgroup without the pids controller: RLIMIT_NPROC inside still bounds an ordinary user.
    const noPids = bwrapCommand({ ...base, limits, cgroup: { ...cgroup, held: ['memory'] } }).args;
    expect(noPids.slice(noPids.indexOf('/usr/bin/prlimit'))).toEqual([
      '/usr/bin/prlimit',
      '--nproc=20:20',
      '--',
      '/usr/bin/node',
      '/opt/srv/index.js',
      '--flag',
    ]);
  });

  it('starts the relay first for a filtered network, its sockets bound read-only, and unshares the network', () => {
    const relay = { socketDir: '/tmp/sb-net-1', node: '/usr/bin/node', mirrored: [5432] };
    const network = { kind: 'filtered', loopback: [5432], hosts: [], allowPrivate: false } as const;
    const { args } = bwrapCommand({ ...base, network, relay });
    expect(args).toContain('--unshare-net');
    expect(valuesOf(args, '--ro-bind', 2)).toContainEqual(['/tmp/sb-net-1', '/run/switchboard-net']);
    const program = args.slice(args.lastIndexOf('--chdir') + 3);
    expect(program.slice(0, 2)).toEqual(['/usr/bin/node', '-e']);
    expect(program.slice(3)).toEqual([
      '--',
      '/run/switchboard-net',
      '5432',
      '/usr/bin/node',
      '/opt/srv/index.js',
      '--flag',
    ]);
  });

  it('lays cache overlays after the grants, below the state directory', () => {
    const overlays = [
      {
        lower: '/home/me/.npm',
        upper: '/data/sandbox/probe/.l/upper',
        work: '/data/sandbox/probe/.l/work',
        inside: '/data/sandbox/probe/.npm',
      },
    ];
    const { args } = bwrapCommand({ ...base, overlays });
    const at = args.indexOf('--overlay-src');
    expect(args.slice(at, at + 6)).toEqual([
      '--overlay-src',
      '/home/me/.npm',
      '--overlay',
      ...Object.values(overlays[0]!).slice(1),
    ]);
    expect(at).toBeGreaterThan(args.indexOf('/data/sandbox/probe'));
    expect(at).toBeLessThan(args.indexOf('--chdir'));
  });

  it('says what does not hold: the process limit for root without a cgroup, a CPU share without one', () => {
    expect(planWarnings({ limits: { processes: 5 } }, 0)[0]).toMatch(/exempts root/);
    expect(planWarnings({ limits: { processes: 5 } }, 1000)).toEqual([]);
    expect(planWarnings({ limits: {} }, 0)).toEqual([]);
    const pids = { shell: '/bin/sh', procs: ['/p'], held: ['pids' as const] };
    expect(planWarnings({ limits: { processes: 5 }, cgroup: pids }, 0)).toEqual([]);
    expect(planWarnings({ limits: { cpus: 1 } }, 1000)[0]).toMatch(/CPU share \(1 CPU\) does not hold/);
  });

  it('describes which limits hold for the tree and which per process', () => {
    const limits = { memoryMb: 512, processes: 64, cpuSeconds: 60 };
    const cgroup = { shell: '/bin/sh', procs: ['/p'], held: ['pids' as const, 'memory' as const] };
    expect(describeLimits({ limits, cgroup }, 0)).toBe(
      'limits: cgroup: 64 processes, 512 MiB for the whole tree; rlimits: 60 s CPU per process (RLIMIT_CPU)',
    );
    expect(describeLimits({ limits }, 1000)).toBe(
      'limits: rlimits: 64 processes (RLIMIT_NPROC), 512 MiB data per process (RLIMIT_DATA), 60 s CPU per process (RLIMIT_CPU)',
    );
    // Root without a cgroup: the process count is not claimed.
    expect(describeLimits({ limits }, 0)).not.toMatch(/processes/);
    expect(describeLimits({ limits: {} }, 0)).toBe('no limits');
  });
});

describe('mountOrder', () => {
  it('mounts parents before children, so each path gets its own grant, writable winning over read-only', () => {
    const order = mountOrder({
      read: ['/srv/data/inner/deeper', '/srv/data', '/srv/out'],
      write: ['/srv/data/inner', '/srv/out'],
      stateDir: '/state/x',
    });
    expect(order).toEqual([
      { path: '/srv/data', writable: false },
      { path: '/srv/out', writable: true },
      { path: '/state/x', writable: true },
      { path: '/srv/data/inner', writable: true },
      { path: '/srv/data/inner/deeper', writable: false },
    ]);
  });
});
