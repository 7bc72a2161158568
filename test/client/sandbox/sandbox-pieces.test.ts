import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  leafName,
  leafOwner,
  limitFiles,
  neededControllers,
  ownDirectory,
  parseMountinfo,
  parseProcCgroup,
  trackingParent,
  v1Place,
} from '../../../src/client/cgroups/cgroup-plan.js';
import { cacheLayers, launcherOf } from '../../../src/client/sandbox/launcher-cache.js';
import { sandboxEnv } from '../../../src/client/sandbox/sandbox-env.js';
import { programPaths, SYSTEM_PATHS } from '../../../src/client/sandbox/sandbox-paths.js';

/** The sandbox's pure pieces: the cgroup plan, the program's grants, the environment, the launcher caches. */

const MOUNTINFO = [
  '25 24 0:21 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755',
  '26 25 0:22 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw',
  '27 25 0:23 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids',
  '28 25 0:24 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct',
  '29 25 0:25 /docker/abc /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory',
  '30 25 0:26 / /mnt/with\\040space rw - cgroup2 cgroup2 rw',
].join('\n');
const PROC_CGROUP = [
  '5:pids:/',
  '4:cpu,cpuacct:/user.slice',
  '3:memory:/docker/abc/inner',
  '0::/init.scope',
].join('\n');

describe('the cgroup plan', () => {
  it('reads the mounts and this process’s cgroups, and finds its directory in each', () => {
    const mounts = parseMountinfo(MOUNTINFO);
    expect(mounts.map((m) => [m.version, m.mountPoint])).toEqual([
      [2, '/sys/fs/cgroup/unified'],
      [1, '/sys/fs/cgroup/pids'],
      [1, '/sys/fs/cgroup/cpu,cpuacct'],
      [1, '/sys/fs/cgroup/memory'],
      [2, '/mnt/with space'],
    ]);
    const owns = parseProcCgroup(PROC_CGROUP);
    const dir = (c: 'pids' | 'cpu' | 'memory') => {
      const place = v1Place(mounts, owns, c)!;
      return ownDirectory(place.mount, place.own);
    };
    expect(dir('pids')).toBe('/sys/fs/cgroup/pids');
    expect(dir('cpu')).toBe('/sys/fs/cgroup/cpu,cpuacct/user.slice');
    // A container's mount of part of the tree: the path below the part.
    expect(dir('memory')).toBe('/sys/fs/cgroup/memory/inner');
    expect(
      ownDirectory(mounts[3]!, { id: '3', controllers: ['memory'], path: '/elsewhere' }),
    ).toBeUndefined();
    expect(ownDirectory(mounts[0]!, owns[3]!)).toBe('/sys/fs/cgroup/unified/init.scope');
  });

  it('writes each controller’s limit in its version’s files', () => {
    const limits = { processes: 64, memoryMb: 512, cpus: 1.5 };
    expect(neededControllers(limits)).toEqual(['pids', 'memory', 'cpu']);
    expect(neededControllers({ cpuSeconds: 5 })).toEqual([]);
    expect(limitFiles(2, 'pids', limits)).toEqual([{ file: 'pids.max', value: '64' }]);
    expect(limitFiles(2, 'memory', limits)).toEqual([
      { file: 'memory.max', value: String(512 * 1024 * 1024) },
      { file: 'memory.swap.max', value: '0', optional: true },
    ]);
    expect(limitFiles(2, 'cpu', limits)).toEqual([{ file: 'cpu.max', value: '150000 100000' }]);
    expect(limitFiles(1, 'memory', limits)[0]).toEqual({
      file: 'memory.limit_in_bytes',
      value: String(512 * 1024 * 1024),
    });
    expect(limitFiles(1, 'cpu', limits)).toEqual([
      { file: 'cpu.cfs_period_us', value: '100000' },
      { file: 'cpu.cfs_quota_us', value: '150000' },
    ]);
  });

  it('names a leaf by the host’s pid and start time, so a later host can tell a dead one’s', () => {
    const name = leafName({ pid: 4242, startTime: 991 }, 'my server/../x', 7);
    expect(name).toBe('switchboard-4242.991-my_server_.._x-7');
    expect(leafOwner(name)).toEqual({ pid: 4242, startTime: 991 });
    // A leaf named before start times were: judged by its pid alone.
    expect(leafOwner('switchboard-4242-x-1')).toEqual({ pid: 4242, startTime: 0 });
    expect(leafOwner('system.slice')).toBeUndefined();
  });

  it('tracks a server beside this process: cgroup v2 first, else v1 pids or systemd', () => {
    const v2 = { version: 2 as const, mountPoint: '/sys/fs/cgroup/unified', root: '/', controllers: [] };
    const pids = {
      version: 1 as const,
      mountPoint: '/sys/fs/cgroup/pids',
      root: '/',
      controllers: ['rw', 'pids'],
    };
    const owns = [
      { id: '0', controllers: [], path: '/user.slice/me' },
      { id: '8', controllers: ['pids'], path: '/box' },
    ];
    expect(trackingParent([pids, v2], owns)).toEqual({
      dir: '/sys/fs/cgroup/unified/user.slice/me',
      version: 2,
    });
    expect(trackingParent([pids], owns)).toEqual({ dir: '/sys/fs/cgroup/pids/box', version: 1 });
    expect(trackingParent([], owns)).toBeUndefined();
  });
});

describe('the program’s own grants', () => {
  it('grants nothing for a system program, and never / or the home directory', () => {
    expect(programPaths({ path: '/bin/true', real: '/usr/bin/true' }, [], SYSTEM_PATHS)).toEqual([]);
    expect(
      programPaths({ path: '/usr/local/bin/node', real: '/usr/local/bin/node' }, [], SYSTEM_PATHS),
    ).toEqual([]);
    const home = homedir();
    expect(
      programPaths({ path: join(home, 'bin', 'tool'), real: join(home, 'bin', 'tool') }, [], SYSTEM_PATHS),
    ).toEqual([join(home, 'bin')]);
    expect(programPaths({ path: '/tool', real: '/tool' }, [], SYSTEM_PATHS)).toEqual(['/tool']);
    expect(
      programPaths({ path: '/opt/node/bin/node', real: '/opt/node/bin/node' }, [], SYSTEM_PATHS),
    ).toEqual(['/opt/node']);
  });
});

describe('the environment', () => {
  it('lets in the defaults and the listed names and prefixes, then the entry’s own; never a shell function', () => {
    const host = {
      PATH: '/usr/bin',
      LANG: 'C',
      LC_TIME: 'C',
      SECRET: 's',
      GH_TOKEN: 't',
      AWS_KEY: 'k',
      AWS_REGION: 'r',
      BASH_FUNC: '() { :; }',
      TERM: '() { evil; }',
    };
    expect(sandboxEnv(host, { OWN: '1' }, ['GH_TOKEN', 'AWS_*'])).toEqual({
      PATH: '/usr/bin',
      LANG: 'C',
      LC_TIME: 'C',
      GH_TOKEN: 't',
      AWS_KEY: 'k',
      AWS_REGION: 'r',
      OWN: '1',
    });
    expect(sandboxEnv(host, {}, [])).toEqual({ PATH: '/usr/bin', LANG: 'C', LC_TIME: 'C' });
  });
});

describe('launcher caches', () => {
  it('knows npx and uvx by their names or what they link to, and where their caches are', () => {
    expect(launcherOf('npx', '/usr/lib/node_modules/npm/bin/npx-cli.js')).toBe('npm');
    expect(launcherOf('/home/me/.local/bin/uvx', '/home/me/.local/bin/uvx')).toBe('uv');
    expect(launcherOf('node', '/usr/bin/node')).toBeUndefined();
    expect(cacheLayers('npm', {}, '/home/me', '/s')).toEqual([
      { name: 'npm', lower: '/home/me/.npm', inside: '/s/.npm' },
    ]);
    expect(cacheLayers('npm', { npm_config_cache: '/c/npm' }, '/home/me', '/s')[0]!.lower).toBe('/c/npm');
    expect(
      cacheLayers('uv', { XDG_CACHE_HOME: '/xdg' }, '/home/me', '/s').map((l) => [l.lower, l.inside]),
    ).toEqual([
      ['/xdg/uv', '/s/.cache/uv'],
      ['/home/me/.local/share/uv/python', '/s/.local/share/uv/python'],
    ]);
  });
});
