import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../../src/core/server-config.js';
import { sandboxProbeBin } from '../../fixtures/paths.js';
import { killSurvivors, processesWithEnv, running } from '../../helpers/processes.js';
import { filesystemBin } from '../../helpers/servers.js';
import { eventually } from '../../helpers/wait.js';
import { isRoot, skipSandbox } from './sandbox-availability.js';

/**
 * Sandboxed stdio servers as real processes under real kernel isolation (bubblewrap): a
 * witness server tries to read the user's keys, another server's state and the store, to write
 * outside its directory, to connect to the host's loopback and beyond, and to fork without
 * bound. Each is refused under the default profile and allowed where the profile grants it.
 */

interface Report {
  read: { path: string; ok: boolean; code?: string }[];
  write: { path: string; ok: boolean; code?: string }[];
  connect: { host: string; port: number; ok: boolean; code?: string }[];
  spawn?: { started: number; code?: string };
  env: Record<string, string | null>;
}

let root: string;
let home: string;
let dataDir: string;
let sandboxDir: string;
const connections: Connection[] = [];
const stateDirs: string[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-sandbox-'));
  home = join(root, 'home');
  dataDir = join(home, '.switchboard');
  sandboxDir = join(dataDir, 'sandbox');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.aws'), { recursive: true });
  mkdirSync(join(sandboxDir, 'other'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key=SECRET');
  writeFileSync(join(dataDir, 'switchboard.db'), 'the store');
  writeFileSync(join(sandboxDir, 'other', 'state.json'), '{"token":"other server"}');
});

afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  // Nothing of a sandbox may outlive its connection (see the tree test); a failure orphans nothing.
  for (const dir of stateDirs.splice(0)) killSurvivors(processesWithEnv('HOME', dir));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function probeServer(name: string, sandbox: RawServerEntry['sandbox'], extra: Partial<RawServerEntry> = {}) {
  stateDirs.push(join(sandboxDir, name));
  const logs: LogEntry[] = [];
  const conn = new Connection({
    config: normalizeServerEntry({
      name,
      command: process.execPath,
      args: [sandboxProbeBin],
      protocol: 'legacy',
      ...(sandbox !== undefined && { sandbox }),
      ...extra,
    }),
    env: { ...process.env, HOME: home },
    eraStore: new MemoryEraVerdictStore(),
    sandboxDir,
    onLog: (entry) => logs.push(entry),
  });
  connections.push(conn);
  return { conn, logs };
}

async function probe(conn: Connection, args: Record<string, unknown>): Promise<Report> {
  const result = await conn.callTool('probe', args);
  expect(result.isError).toBe(false);
  return JSON.parse(result.text) as Report;
}

function listen(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || address === null) throw new Error('no port');
      resolve({ server, port: address.port, accepted: () => accepted });
    });
  });
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
    const listener = await listen();
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
      listener.server.close();
    }
  });

  it.skipIf(isRoot)('bounds the processes it may start (a fork bomb ends at the limit)', async () => {
    const { conn } = probeServer('forker', { limits: { processes: 40 } });
    await conn.connect();
    const report = await probe(conn, { spawn: 200 });
    expect(report.spawn!.code).toBe('EAGAIN');
    expect(report.spawn!.started).toBeLessThan(40);
    const unbounded = probeServer('forker-more', { limits: { processes: 400 } });
    await unbounded.conn.connect();
    expect((await probe(unbounded.conn, { spawn: 50 })).spawn).toEqual({ started: 50 });
  });

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

  it('runs @modelcontextprotocol/server-filesystem on its roots: read-only unless granted writable', async () => {
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'notes.txt'), 'hello from the root');
    const entry = (name: string, sandbox: RawServerEntry['sandbox']) =>
      normalizeServerEntry({
        name,
        command: process.execPath,
        args: [filesystemBin, work],
        protocol: 'legacy',
        roots: [{ uri: pathToFileURL(work).href }],
        sandbox,
      });
    stateDirs.push(join(sandboxDir, 'fs'), join(sandboxDir, 'fs-write'));
    const fs = new Connection({
      config: entry('fs', 'default'),
      eraStore: new MemoryEraVerdictStore(),
      sandboxDir,
    });
    connections.push(fs);
    await fs.connect();
    const read = await fs.callTool('read_text_file', { path: join(work, 'notes.txt') });
    expect(read.text).toContain('hello from the root');
    const write = await fs.callTool('write_file', { path: join(work, 'new.txt'), content: 'x' });
    expect(write.isError).toBe(true);
    expect(existsSync(join(work, 'new.txt'))).toBe(false);

    const fsWrite = new Connection({
      config: entry('fs-write', { write: [work] }),
      eraStore: new MemoryEraVerdictStore(),
      sandboxDir,
    });
    connections.push(fsWrite);
    await fsWrite.connect();
    const wrote = await fsWrite.callTool('write_file', { path: join(work, 'new.txt'), content: 'written' });
    expect(wrote.isError).toBe(false);
    expect(readFileSync(join(work, 'new.txt'), 'utf8')).toBe('written');
  });

  it('refuses to start, and starts nothing, when bubblewrap is missing', async () => {
    const empty = mkdtempSync(join(root, 'no-bwrap-'));
    const logs: LogEntry[] = [];
    const conn = new Connection({
      config: normalizeServerEntry({
        name: 'nobwrap',
        command: process.execPath,
        args: [sandboxProbeBin],
        sandbox: 'default',
      }),
      eraStore: new MemoryEraVerdictStore(),
      sandboxDir,
      bwrapDirs: [empty],
      onLog: (entry) => logs.push(entry),
    });
    connections.push(conn);
    const failure = await conn.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSwitchboardError(failure, 'SANDBOX_UNAVAILABLE')).toBe(true);
    expect((failure as { details: { reason: string } }).details.reason).toBe('bwrap-missing');
    expect((failure as Error).message).toMatch(/apt-get install bubblewrap/);
    expect((failure as Error).message).toMatch(/not started unsandboxed/);
    expect(logs.some((l) => l.text.startsWith('started process'))).toBe(false);
    expect(existsSync(join(sandboxDir, 'nobwrap'))).toBe(false);
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
