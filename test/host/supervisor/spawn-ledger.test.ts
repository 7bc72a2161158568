import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootId, readProcess } from '../../../src/client/transports/process-table.js';
import { TREE_MARK_VAR } from '../../../src/client/transports/process-tree.js';
import {
  type HostIdentity,
  judgeRecord,
  type LedgerRecord,
  parseRecord,
} from '../../../src/host/supervisor/ledger-record.js';
import { reapLeftovers } from '../../../src/host/supervisor/leftover-reaper.js';
import { SpawnLedger } from '../../../src/host/supervisor/spawn-ledger.js';
import { killSurvivors, running } from '../../helpers/processes.js';

/** The spawn ledger: its records, the verdict on them, and the reaping of dead hosts' trees. */
const self: HostIdentity = {
  pid: process.pid,
  startTime: readProcess(process.pid)!.startTime,
  bootId: bootId()!,
  hostname: hostname(),
};
const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  // Some are meant to survive the reaping; none may survive the test.
  killSurvivors(started.splice(0).map((c) => c.pid!));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function record(
  over: Omit<Partial<LedgerRecord>, 'host'> & { host?: Partial<HostIdentity> } = {},
): LedgerRecord {
  return {
    version: 1,
    hostId: over.hostId ?? randomBytes(16).toString('hex'),
    startedAt: '2026-01-01T00:00:00.000Z',
    servers: over.servers ?? [],
    host: { ...self, ...over.host },
  };
}

/** A `sleep` with `env` added; resolves once it runs, with its start time. */
async function sleeper(env: Record<string, string>): Promise<{ pid: number; startTime: number }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore', env: { PATH: process.env.PATH ?? '', ...env } });
  started.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return { pid: child.pid!, startTime: readProcess(child.pid!)!.startTime };
}

/** A pid and start time of a process that has ended (a dead host). */
async function deadProcess(): Promise<{ pid: number; startTime: number }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  const startTime = readProcess(child.pid!)!.startTime;
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return { pid: child.pid!, startTime };
}

async function ledgerDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-ledger-'));
  dirs.push(dir);
  return dir;
}

describe('judgeRecord', () => {
  const none = () => undefined;
  it('keeps a live host, drops a dead one, a stale boot and leaves another machine alone', () => {
    expect(judgeRecord(record(), self, none)).toBe('alive'); // this very process
    expect(
      judgeRecord(record({ host: { pid: 42, startTime: 7 } }), self, (pid) => (pid === 42 ? 7 : undefined)),
    ).toBe('alive');
    // pid 42 runs, but it is another process now (recycled).
    expect(judgeRecord(record({ host: { pid: 42, startTime: 7 } }), self, () => 9)).toBe('dead');
    expect(judgeRecord(record({ host: { pid: 42, startTime: 7 } }), self, none)).toBe('dead');
    expect(judgeRecord(record({ host: { bootId: 'other-boot' } }), self, none)).toBe('stale');
    expect(judgeRecord(record({ host: { hostname: 'elsewhere' } }), self, none)).toBe('foreign');
  });
});

describe('parseRecord', () => {
  it('reads what the ledger writes and refuses anything else', () => {
    const r = record({ servers: [{ pid: 5, startTime: 6, mark: 'a/b', command: ['x'] }] });
    expect(parseRecord(JSON.stringify(r))).toEqual(r);
    expect(parseRecord(JSON.stringify(r).slice(0, 40))).toBeUndefined(); // a write cut short
    expect(parseRecord('{"version":2}')).toBeUndefined();
    expect(parseRecord(JSON.stringify({ ...r, hostId: '../x' }))).toBeUndefined();
    expect(parseRecord('null')).toBeUndefined();
  });
});

describe('reapLeftovers', () => {
  it("kills a dead host's marked processes and its recorded servers, and drops its record", async () => {
    const dir = await ledgerDir();
    const dead = await deadProcess();
    const hostId = randomBytes(16).toString('hex');
    const marked = await sleeper({ [TREE_MARK_VAR]: `${hostId}/s1` });
    // A recorded server that cleared its environment: known by pid and start time alone.
    const bare = await sleeper({});
    const r = record({
      hostId,
      host: { ...dead, startTime: dead.startTime },
      servers: [{ ...bare, mark: `${hostId}/s2`, command: ['sleep', '60'] }],
    });
    await writeFile(join(dir, `${hostId}.json`), JSON.stringify(r));
    // A newer write that was cut short by the kill: the record before it counts.
    await writeFile(join(dir, `${hostId}.json.tmp`), '{"version":1,"hostId":"');
    const logs: string[] = [];
    const summary = await reapLeftovers(dir, self, (t) => logs.push(t));
    expect(summary).toEqual({ hosts: 1, killed: 2, left: 0 });
    expect(running(marked.pid)).toBe(false);
    expect(running(bare.pid)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
    expect(logs.join('\n')).toMatch(/died without ending its stdio servers: 2 process/);
  });

  it("never touches a live host's processes, nor what is recorded with a pid now someone else's", async () => {
    const dir = await ledgerDir();
    const live = record();
    const ours = await sleeper({ [TREE_MARK_VAR]: `${live.hostId}/s1` });
    await writeFile(join(dir, `${live.hostId}.json`), JSON.stringify(live));
    const dead = await deadProcess();
    const stranger = await sleeper({});
    // The dead host recorded a server whose pid now belongs to a stranger (another start time).
    const recycled = record({
      host: dead,
      servers: [{ pid: stranger.pid, startTime: stranger.startTime - 1, mark: 'x/y', command: [] }],
    });
    await writeFile(join(dir, `${recycled.hostId}.json`), JSON.stringify(recycled));
    const summary = await reapLeftovers(dir, self, () => undefined);
    expect(summary).toEqual({ hosts: 1, killed: 0, left: 0 });
    expect(running(ours.pid)).toBe(true);
    expect(running(stranger.pid)).toBe(true);
    expect(await readdir(dir)).toEqual([`${live.hostId}.json`]);
  });

  it('drops records of an earlier boot, keeps other machines and unreadable files, cleans old orphan temp files', async () => {
    const dir = await ledgerDir();
    const stale = record({ host: { bootId: 'an-earlier-boot' } });
    const foreign = record({ host: { hostname: 'another-machine', pid: 1, startTime: 1 } });
    await writeFile(join(dir, `${stale.hostId}.json`), JSON.stringify(stale));
    await writeFile(join(dir, `${foreign.hostId}.json`), JSON.stringify(foreign));
    await writeFile(join(dir, 'broken.json'), 'not json');
    await writeFile(join(dir, 'aaaa.json.tmp'), '{"ver');
    await writeFile(join(dir, 'bbbb.json.tmp'), '{"ver');
    const old = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(join(dir, 'aaaa.json.tmp'), old, old); // a first write cut short, long ago
    const logs: string[] = [];
    await reapLeftovers(dir, self, (t) => logs.push(t));
    expect((await readdir(dir)).sort()).toEqual(
      ['bbbb.json.tmp', 'broken.json', `${foreign.hostId}.json`].sort(),
    );
    expect(logs.join('\n')).toMatch(/broken\.json is not a ledger record/);
  });
});

describe('SpawnLedger', () => {
  it('records servers as they start and end, and leaves no file after a clean close', async () => {
    const dir = await ledgerDir();
    const ledger = (await SpawnLedger.open({ dir, watchdog: false, log: () => undefined }))!;
    const file = join(dir, `${ledger.markPrefix.slice(0, -1)}.json`);
    const read = async () => parseRecord(await readFile(file, 'utf8'))!;
    expect((await read()).servers).toEqual([]);
    const server = { pid: 123, startTime: 456, mark: `${ledger.markPrefix}abc`, command: ['node', 'x.js'] };
    ledger.spawned(server);
    ledger.spawned({ ...server, mark: `${ledger.markPrefix}def` });
    ledger.ended(server);
    await ledger.close();
    // One server never ended: the record stays for the next host.
    expect((await read()).servers.map((s) => s.mark)).toEqual([`${ledger.markPrefix}def`]);
    ledger.ended({ ...server, mark: `${ledger.markPrefix}def` });
    // It ended after the close: the record goes now.
    for (let i = 0; i < 200 && (await readdir(dir)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await readdir(dir)).toEqual([]);
  });
});
