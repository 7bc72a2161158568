import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ownDirectory,
  parseMountinfo,
  parseProcCgroup,
  v1Place,
} from '../../../src/client/cgroups/cgroup-plan.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { processesWithEnv, running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';
import {
  listenEcho,
  makePlace,
  ProbeServers,
  probe,
  removePlace,
  type SandboxPlace,
  sandboxLine,
} from './probe-harness.js';
import { isRoot, processCgroup, required, skipSandbox } from './sandbox-availability.js';

/**
 * Sandboxed stdio servers as real processes under real kernel isolation (bubblewrap): a
 * witness server tries to read the user's keys, another server's state and the store, to write
 * outside its directory, to connect to the host's loopback and beyond, and to fork without
 * bound. Each is refused under the default profile and allowed where the profile grants it.
 */

let place: SandboxPlace;
let root: string;
let home: string;
let dataDir: string;
let sandboxDir: string;
let servers: ProbeServers;

beforeAll(() => {
  place = makePlace();
  ({ root, home, dataDir, sandboxDir } = place);
  servers = new ProbeServers(place);
});
afterEach(() => servers.cleanUp());
afterAll(() => removePlace(place));

const probeServer = (...args: Parameters<ProbeServers['add']>) => servers.add(...args);

/** The host's directory of the pids cgroup `pid` is in (v1 or v2). */
function pidsCgroupOf(pid: number): string {
  const own = parseProcCgroup(readFileSync(`/proc/${pid}/cgroup`, 'utf8'));
  const mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
  const v1 = v1Place(mounts, own, 'pids');
  const v2 = mounts.find((m) => m.version === 2);
  const line = v1 ?? (v2 && { mount: v2, own: own.find((o) => o.id === '0')! });
  return ownDirectory(line!.mount, line!.own)!;
}

const secrets = () => [
  join(home, '.ssh', 'id_ed25519'),
  join(home, '.aws', 'credentials'),
  join(sandboxDir, 'other', 'state.json'),
  join(dataDir, 'switchboard.db'),
];

describe.skipIf(skipSandbox)('sandboxed stdio servers (bubblewrap)', () => {
  it('cannot read the keys, another server’s state or the store under the default profile; can when granted', async () => {
    const { conn } = probeServer('reader', 'default');
    await conn.connect();
    const denied = await probe(conn, { read: secrets(), env: ['HOME'] });
    expect(denied.read.map((r) => r.ok)).toEqual([false, false, false, false]);
    // Its HOME is its own state directory, not the user's.
    expect(denied.env.HOME).toBe(join(sandboxDir, 'reader'));

    const granted = probeServer('granted-reader', { read: [join(home, '.ssh'), join(home, '.aws')] });
    await granted.conn.connect();
    const allowed = await probe(granted.conn, { read: secrets() });
    expect(allowed.read.map((r) => r.ok)).toEqual([true, true, false, false]);
  });

  it('profile paths may name variables, expanded from the environment at start', async () => {
    const { conn } = probeServer('vars', { read: ['${HOME}/.ssh'] });
    await conn.connect();
    const report = await probe(conn, { read: [join(home, '.ssh', 'id_ed25519')] });
    expect(report.read[0]!.ok).toBe(true);
  });

  it('writes only its state directory (and a private /tmp) unless a directory is granted writable', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    const { conn } = probeServer('writer', 'default');
    await conn.connect();
    const privateTmp = `/tmp/sb-private-${process.pid}-${Date.now()}`;
    const targets = [
      join(outside, 'x'),
      join(sandboxDir, 'writer', 'own'),
      join(home, '.bashrc'),
      privateTmp,
    ];
    const report = await probe(conn, { write: targets });
    expect(report.write.map((w) => w.ok).slice(0, 2)).toEqual([false, true]);
    // What lands in the sandbox's own /tmp (a tmpfs holding the mount points' parents, such as
    // this test's home under /tmp) may succeed there, and never reaches the host.
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(existsSync(privateTmp)).toBe(false);
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
    expect(readFileSync(join(sandboxDir, 'writer', 'own'), 'utf8')).toBe('written');

    const readOnly = probeServer('read-only', { read: [outside] });
    await readOnly.conn.connect();
    expect((await probe(readOnly.conn, { write: [join(outside, 'y')] })).write[0]).toMatchObject({
      ok: false,
      code: 'EROFS',
    });
    const writable = probeServer('granted-writer', { write: [outside] });
    await writable.conn.connect();
    expect((await probe(writable.conn, { write: [join(outside, 'x')] })).write[0]!.ok).toBe(true);
    expect(readFileSync(join(outside, 'x'), 'utf8')).toBe('written');
  });

  it('has no network by default: the host’s loopback and other addresses are unreachable; "host" shares it', async () => {
    const listener = await listenEcho();
    try {
      const { conn } = probeServer('offline', 'default');
      await conn.connect();
      const targets = [
        { host: '127.0.0.1', port: listener.port },
        // TEST-NET-1 (RFC 5737): a network namespace of its own has no route there, so the
        // connect fails at once and no packet leaves.
        { host: '192.0.2.1', port: 9 },
      ];
      const report = await probe(conn, { connect: targets });
      expect(report.connect[0]).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
      expect(report.connect[1]).toMatchObject({ ok: false, code: 'ENETUNREACH' });
      expect(listener.accepted()).toBe(0);

      const online = probeServer('online', { network: 'host' });
      await online.conn.connect();
      const shared = await probe(online.conn, { connect: [targets[0]] });
      expect(shared.connect[0]!.ok).toBe(true);
      await eventually(listener.accepted, (n) => n === 1, { what: 'seen the connection' });
    } finally {
      listener.close();
    }
  });

  it('passes in the default variables, the ones the profile lists and the entry’s own; no other', async () => {
    const hostEnv = {
      ...process.env,
      HOME: home,
      SB_TEST_TOKEN: 'listed',
      SB_PREFIX_ONE: 'by prefix',
      SB_SECRET: 'must not pass',
      AWS_SECRET_ACCESS_KEY: 'must not pass either',
      LC_TIME: 'C',
    };
    const { conn, stateDir } = probeServer(
      'env',
      { env: ['SB_TEST_TOKEN', 'SB_PREFIX_*'] },
      { env: { OWN: 'from the entry', STATE: '${SWITCHBOARD_STATE_DIR}/memory.jsonl' } },
      { env: hostEnv },
    );
    await conn.connect();
    const names = ['SB_TEST_TOKEN', 'SB_PREFIX_ONE', 'SB_SECRET', 'AWS_SECRET_ACCESS_KEY', 'LC_TIME', 'PATH'];
    const report = await probe(conn, {
      env: [...names, 'OWN', 'STATE', 'HOME', 'TMPDIR', 'SWITCHBOARD_STATE_DIR', 'HTTP_PROXY'],
    });
    expect(report.env).toMatchObject({
      SB_TEST_TOKEN: 'listed',
      SB_PREFIX_ONE: 'by prefix',
      SB_SECRET: null,
      AWS_SECRET_ACCESS_KEY: null,
      LC_TIME: 'C',
      PATH: process.env.PATH,
      OWN: 'from the entry',
      STATE: join(stateDir, 'memory.jsonl'),
      HOME: stateDir,
      TMPDIR: '/tmp',
      SWITCHBOARD_STATE_DIR: stateDir,
      HTTP_PROXY: null,
    });
    // The default profile lets in the defaults alone.
    const plain = probeServer('env-default', 'default', {}, { env: hostEnv });
    await plain.conn.connect();
    expect((await probe(plain.conn, { env: names })).env).toMatchObject({
      SB_TEST_TOKEN: null,
      SB_PREFIX_ONE: null,
      SB_SECRET: null,
      LC_TIME: 'C',
    });
  });

  // Not root: RLIMIT_NPROC (per user namespace) bounds it where no cgroup can be made. Root
  // without a cgroup: nothing does — skipped saying so, and a failure where CI requires it.
  it.skipIf(isRoot && !processCgroup.held && !required)(
    'bounds the processes of its whole tree, for root too (a cgroup’s pids.max), and says how',
    async () => {
      if (isRoot) expect(processCgroup.held, processCgroup.why).toBe(true);
      const { conn, logs } = probeServer('forker', { limits: { processes: 40 } });
      await conn.connect();
      expect(sandboxLine(logs)).toMatch(
        processCgroup.held
          ? /cgroup: 40 processes, 2048 MiB for the whole tree/
          : /40 processes \(RLIMIT_NPROC\)/,
      );
      const report = await probe(conn, { spawn: 200 });
      expect(report.spawn!.code).toBe('EAGAIN');
      expect(report.spawn!.started).toBeLessThan(40);
      const unbounded = probeServer('forker-more', { limits: { processes: 400 } });
      await unbounded.conn.connect();
      expect((await probe(unbounded.conn, { spawn: 50 })).spawn).toEqual({ started: 50 });
    },
  );

  it.skipIf(!processCgroup.held)(
    'holds a real fork bomb at pids.max and ends all of it on close',
    async () => {
      const { conn, logs, stateDir } = probeServer('bomb', { limits: { processes: 40, cpus: 0.5 } });
      await conn.connect();
      // Only where the cgroup is seen to hold: a fork bomb as root outside one would take the machine.
      expect(sandboxLine(logs)).toMatch(/cgroup: 40 processes, 2048 MiB, 0\.5 CPU for the whole tree/);
      for (const pid of processesWithEnv('HOME', stateDir))
        expect(readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toMatch(/switchboard-\d+\.\d+-bomb-/);
      expect((await probe(conn, { spawn: 100 })).spawn).toMatchObject({ code: 'EAGAIN' });
      // The kernel's own record of the cgroup: how often it refused a fork, how many it holds.
      const cgroup = pidsCgroupOf(processesWithEnv('HOME', stateDir)[0]!);
      const refusals = () => Number(/max (\d+)/.exec(readFileSync(join(cgroup, 'pids.events'), 'utf8'))?.[1]);
      const before = refusals();
      await probe(conn, { bomb: true });
      // It runs into the limit again and again, and what the cgroup holds never passes it.
      let most = 0;
      await eventually(
        () => {
          most = Math.max(most, Number(readFileSync(join(cgroup, 'pids.current'), 'utf8')));
          return refusals();
        },
        (count) => count > before + 20,
        { what: 'seen the bomb refused at the limit' },
      );
      expect(most).toBeLessThanOrEqual(40);
      expect(processesWithEnv('HOME', stateDir).length).toBeLessThanOrEqual(40);
      // The server still answers beside it (its threads were there first).
      const tree = processesWithEnv('HOME', stateDir);
      await conn.close();
      await eventually(
        () => tree.filter(running),
        (left) => left.length === 0,
        { what: 'ended the bomb with the sandbox', timeoutMs: 15_000 },
      );
    },
  );

  it.skipIf(!processCgroup.memory)(
    'bounds the memory of its whole tree, not only of each process',
    async () => {
      // Three processes of ~64 MiB each (and Node's own): each under the per-process limit, the
      // three together over the sandbox's 192 MiB.
      const { conn, logs } = probeServer('hogs', { limits: { memoryMb: 192 } });
      await conn.connect();
      expect(sandboxLine(logs)).toMatch(/cgroup: 256 processes, 192 MiB for the whole tree/);
      const report = await probe(conn, { hog: { children: 3, mb: 64 } });
      expect(report.hog).toContain('SIGKILL');
      // One alone fits.
      expect((await probe(conn, { hog: { children: 1, mb: 64 } })).hog).toEqual([0]);
    },
  );

  it('ends its whole tree on close, processes that left its session included', async () => {
    const { conn } = probeServer('lingerer', 'default');
    await conn.connect();
    const report = await probe(conn, { linger: 3 });
    expect(report).toBeDefined();
    const stateDir = join(sandboxDir, 'lingerer');
    // bwrap, its init inside the pid namespace, the server and three sleeps, all seen from outside.
    const tree = processesWithEnv('HOME', stateDir);
    expect(tree.length).toBeGreaterThanOrEqual(5);
    await conn.close();
    await eventually(
      () => tree.filter(running),
      (left) => left.length === 0,
      { what: 'ended the sandbox tree', timeoutMs: 10_000 },
    );
  });

  it('refuses to start, and starts nothing, when bubblewrap is missing', async () => {
    const empty = mkdtempSync(join(root, 'no-bwrap-'));
    const { conn, logs, stateDir } = probeServer('nobwrap', 'default', {}, { bwrapDirs: [empty] });
    const failure = await conn.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSwitchboardError(failure, 'SANDBOX_UNAVAILABLE')).toBe(true);
    expect((failure as { details: { reason: string } }).details.reason).toBe('bwrap-missing');
    expect((failure as Error).message).toMatch(/apt-get install bubblewrap/);
    expect((failure as Error).message).toMatch(/not started unsandboxed/);
    expect(logs.some((l) => l.text.startsWith('started process'))).toBe(false);
    expect(existsSync(stateDir)).toBe(false);
  });

  it('refuses with what to change when the kernel will not create the namespaces', async () => {
    // A real refusal: the probe runs inside a sandbox that forbids further user namespaces.
    const script = `
      import { findBwrap } from ${JSON.stringify(fileURLToPath(new URL('../../../src/client/sandbox/bwrap-probe.ts', import.meta.url)))};
      findBwrap().then(
        () => console.log(JSON.stringify({ ok: true })),
        (e) => console.log(JSON.stringify({ code: e.code, reason: e.details.reason, message: e.message })),
      );`;
    const child = spawn(
      'bwrap',
      [
        '--unshare-user',
        '--disable-userns',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--tmpfs',
        '/tmp',
        '--',
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../../..', import.meta.url)) },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, err).toBe(0);
    const said = JSON.parse(out.trim().split('\n').at(-1)!) as {
      code: string;
      reason: string;
      message: string;
    };
    expect(said).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', reason: 'namespaces-unavailable' });
    expect(said.message).toMatch(/unprivileged user namespaces/);
  });
});
