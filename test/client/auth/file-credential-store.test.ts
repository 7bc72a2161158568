import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../../src/client/auth/file-credential-store.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { rejection } from '../../helpers/rejection.js';
import { describeCredentialStoreContract, sampleCredentials } from './credential-store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-credentials-'));
const worker = fileURLToPath(new URL('./file-credential-store-worker.ts', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
function newDataDir(): string {
  counter += 1;
  return join(root, `data-${counter}`);
}
const posix = process.platform !== 'win32';
const modeOf = (path: string) => statSync(path).mode & 0o777;
const issuer = 'https://as.example/tenant/../x?y=1#z';

/** Starts the worker with `args`; its stdout lines one by one. */
function startWorker(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error(`worker exited early (code ${child.exitCode})`);
    return line.value as string;
  };
  return { child, next };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  children.push(child);
  await once(child, 'exit');
  return child.pid!;
}

describeCredentialStoreContract('files', async () => ({
  store: new FileCredentialStore({ dataDir: newDataDir() }),
}));

describe('FileCredentialStore files', () => {
  it('keeps one versioned JSON file per server and issuer, named by a hash of the issuer', async () => {
    const dataDir = newDataDir();
    const store = new FileCredentialStore({ dataDir });
    await store.save('gh', issuer, sampleCredentials('x'));
    const file = store.fileOf('gh', issuer);
    expect(dirname(file)).toBe(join(dataDir, 'credentials', 'gh'));
    expect(basename(file)).toMatch(/^[0-9a-f]{16}\.json$/);
    expect(readdirSync(dirname(file))).toEqual([basename(file)]);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc).toMatchObject({ version: 1, server: 'gh', issuer, credentials: sampleCredentials('x') });
    expect(Number.isNaN(Date.parse(doc.savedAt))).toBe(false);
    expect(store.fileOf('gh', 'https://other.example')).not.toBe(file);
  });

  it('refuses server names that would leave the credentials folder', async () => {
    const store = new FileCredentialStore({ dataDir: newDataDir() });
    for (const server of ['..', '.', 'a/b', '', 'a\\b']) {
      const error = await rejection(store.save(server, issuer, sampleCredentials('x')));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect((await rejection(store.load(server, issuer))).code).toBe('INVALID_ARGUMENT');
    }
    expect(existsSync(store.dir)).toBe(false);
  });

  it.skipIf(!posix)('creates 0700 folders and 0600 files, and tightens looser ones', async () => {
    const dataDir = newDataDir();
    const store = new FileCredentialStore({ dataDir });
    await store.save('gh', issuer, sampleCredentials('x'));
    const file = store.fileOf('gh', issuer);
    expect(modeOf(store.dir)).toBe(0o700);
    expect(modeOf(dirname(file))).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);

    // Someone widened them: reading narrows them again.
    chmodSync(store.dir, 0o755);
    chmodSync(dirname(file), 0o777);
    chmodSync(file, 0o644);
    expect(await store.load('gh', issuer)).toEqual(sampleCredentials('x'));
    expect([modeOf(store.dir), modeOf(dirname(file)), modeOf(file)]).toEqual([0o700, 0o700, 0o600]);

    // And so does writing.
    chmodSync(store.dir, 0o750);
    chmodSync(dirname(file), 0o755);
    chmodSync(file, 0o666);
    await store.save('gh', issuer, sampleCredentials('y'));
    expect([modeOf(store.dir), modeOf(dirname(file)), modeOf(file)]).toEqual([0o700, 0o700, 0o600]);
  });

  it('reports a damaged file with its path and the fix, and can still delete it', async () => {
    const store = new FileCredentialStore({ dataDir: newDataDir() });
    await store.save('gh', issuer, sampleCredentials('x'));
    const file = store.fileOf('gh', issuer);
    const good = readFileSync(file, 'utf8');
    const cases: [string, RegExp][] = [
      [good.slice(0, good.length / 2), /is not valid JSON/],
      ['', /is not valid JSON/],
      ['[1, 2]', /no format version/],
      [JSON.stringify({ version: 99, server: 'gh', issuer, credentials: {} }), /newer Switchboard.*upgrade/],
      [JSON.stringify({ version: 1, server: 'gh', issuer, credentials: 'x' }), /no credentials object/],
      [
        JSON.stringify({ version: 1, server: 'gh', issuer, credentials: { tokens: {} } }),
        /without an access token/,
      ],
      [good.replace(JSON.stringify(issuer), JSON.stringify('https://evil.example')), /copied or renamed/],
    ];
    for (const [text, problem] of cases) {
      writeFileSync(file, text);
      const error = await rejection(store.load('gh', issuer));
      expect(error.code).toBe('STORAGE_FAILED');
      expect(error.message).toContain(file);
      expect(error.message).toMatch(problem);
      expect(error.message).toMatch(/delete (the file|it)/i);
    }
    writeFileSync(file, '{"version": 1, "server": "gh"');
    expect(isSwitchboardError(await rejection(store.issuers('gh')), 'STORAGE_FAILED')).toBe(true);
    expect(await store.delete('gh', issuer)).toBe(1);
    expect(await store.load('gh', issuer)).toBeUndefined();
    expect(await store.issuers('gh')).toEqual([]);
  });

  it('ignores the temporary file of a cut-short write, and a logout removes it', async () => {
    const store = new FileCredentialStore({ dataDir: newDataDir() });
    await store.save('gh', issuer, sampleCredentials('x'));
    const file = store.fileOf('gh', issuer);
    const temp = join(dirname(file), `.${basename(file)}.999.abcdef01.tmp`);
    writeFileSync(temp, '{"version": 1, "tokens": "half');
    expect(await store.issuers('gh')).toEqual([issuer]);
    expect(await store.load('gh', issuer)).toEqual(sampleCredentials('x'));
    expect(await store.delete('gh', issuer)).toBe(1);
    expect(readdirSync(dirname(file))).toEqual([]);
  });

  it('a writer killed mid-write leaves the old or the new file, never a torn one', async () => {
    const dataDir = newDataDir();
    const store = new FileCredentialStore({ dataDir });
    const size = 2_000_000;
    const file = store.fileOf('big', issuer);
    const started = Date.now();
    let generation = 0;
    let rounds = 0;
    let leftTemp = 0;
    // Bounded by count and by time: each round spawns a writer, lets it save a few times, then
    // kills it the moment its next temporary file appears, i.e. in the middle of a write.
    for (const after of [1, 2, 4, 3, 6]) {
      if (Date.now() - started > 15_000) break;
      rounds += 1;
      const { child, next } = startWorker(['write', dataDir, issuer, String(generation + 1), String(size)]);
      let seen = 0;
      for (let i = 0; i < after; i++) seen = Number((await next()).split(' ')[1]);
      const exited = once(child, 'exit');
      const watcher = watch(dirname(file), (_event, name) => {
        if (name?.endsWith('.tmp')) child.kill('SIGKILL');
      });
      try {
        await exited;
      } finally {
        watcher.close();
      }
      expect(child.signalCode).toBe('SIGKILL');
      if (readdirSync(dirname(file)).some((name) => name.endsWith('.tmp'))) leftTemp += 1;

      const doc = JSON.parse(readFileSync(file, 'utf8'));
      const current = doc.credentials.discovery.generation as number;
      expect(current).toBeGreaterThanOrEqual(seen);
      const letter = String.fromCharCode(97 + (current % 26));
      expect(doc.credentials.discovery.blob).toBe(`g${current}-`.padEnd(size, letter));
      expect((await store.load('big', issuer))?.discovery?.generation).toBe(current);
      generation = current;
    }
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(await store.issuers('big')).toEqual([issuer]);
    // The kills did land mid-write (temporary files left behind); a logout cleans those up.
    expect(leftTemp).toBeGreaterThanOrEqual(1);
    await store.delete('big');
    expect(readdirSync(dirname(file))).toEqual([]);
  }, 60_000);
});

describe('FileCredentialStore locks', () => {
  /** Writes a lock file as another process would have. */
  function plantLock(store: FileCredentialStore, content: unknown): string {
    const lockFile = store.lockFileOf('gh', issuer);
    writeFileSync(lockFile, typeof content === 'string' ? content : JSON.stringify(content));
    return lockFile;
  }

  async function storeWithDir(): Promise<FileCredentialStore> {
    const store = new FileCredentialStore({ dataDir: newDataDir() });
    await store.save('gh', issuer, sampleCredentials('x'));
    return store;
  }

  it('holds a lock file with pid, host and time while fn runs, and removes it after', async () => {
    const store = await storeWithDir();
    const lockFile = store.lockFileOf('gh', issuer);
    expect(dirname(lockFile)).toBe(dirname(store.fileOf('gh', issuer)));
    const inside = await store.withLock('gh', issuer, async () => JSON.parse(readFileSync(lockFile, 'utf8')));
    expect(inside).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(Math.abs(inside.acquiredAt - Date.now())).toBeLessThan(10_000);
    expect(existsSync(lockFile)).toBe(false);
  });

  it('two processes never hold the lock at the same time, starting from a dead holder', async () => {
    const dataDir = newDataDir();
    const log = join(dataDir, 'intervals.log');
    const workers = [0, 1].map(() => startWorker(['lock', dataDir, issuer, log, '6']));
    for (const w of workers) expect(await w.next()).toBe('ready');
    // Both find a lock of a dead process first and race to take it over.
    const lockFile = new FileCredentialStore({ dataDir }).lockFileOf('shared', issuer);
    mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
    const dead = { pid: await deadPid(), hostname: hostname(), acquiredAt: Date.now(), nonce: 'n' };
    writeFileSync(lockFile, JSON.stringify(dead));
    for (const w of workers) w.child.stdin!.write('go\n');
    for (const w of workers) expect(await w.next()).toBe('done');

    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [kind, pid, at] = line.split(' ');
        return { kind, pid: Number(pid), at: Number(at) };
      });
    expect(events).toHaveLength(24);
    expect(new Set(events.map((e) => e.pid))).toEqual(new Set(workers.map((w) => w.child.pid)));
    // Appended in order: every enter is followed by the same process's exit.
    for (let i = 0; i < events.length; i += 2) {
      expect(events[i]).toMatchObject({ kind: 'enter' });
      expect(events[i + 1]).toMatchObject({ kind: 'exit', pid: events[i]!.pid });
    }
    // And by the clock: sorted by entry, each interval starts after the previous one ended.
    const intervals = [];
    for (let i = 0; i < events.length; i += 2) intervals.push([events[i]!.at, events[i + 1]!.at] as const);
    intervals.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < intervals.length; i++)
      expect(intervals[i]![0]).toBeGreaterThanOrEqual(intervals[i - 1]![1]);
  }, 60_000);

  it('takes over a lock left by a dead process on this host at once', async () => {
    const store = await storeWithDir();
    const lockFile = plantLock(store, {
      pid: await deadPid(),
      hostname: hostname(),
      acquiredAt: Date.now(),
      nonce: 'n',
    });
    const holder = await store.withLock(
      'gh',
      issuer,
      async () => JSON.parse(readFileSync(lockFile, 'utf8')),
      {
        timeoutMs: 5000,
      },
    );
    expect(holder.pid).toBe(process.pid);
    expect(existsSync(lockFile)).toBe(false);
    expect(readdirSync(dirname(lockFile)).filter((n) => !n.endsWith('.json'))).toEqual([]);
  });

  it('takes over a lock older than the stale limit, even from another host', async () => {
    const store = await storeWithDir();
    plantLock(store, {
      pid: 4242,
      hostname: 'elsewhere.example',
      acquiredAt: Date.now() - 120_000,
      nonce: 'n',
    });
    expect(await store.withLock('gh', issuer, async () => 'taken', { timeoutMs: 5000 })).toBe('taken');
    // An unreadable lock is judged by its age.
    const lockFile = plantLock(store, '');
    const old = new Date(Date.now() - 120_000);
    utimesSync(lockFile, old, old);
    expect(await store.withLock('gh', issuer, async () => 'taken again', { timeoutMs: 5000 })).toBe(
      'taken again',
    );
  });

  it('takes over a lock this process left behind', async () => {
    const store = await storeWithDir();
    plantLock(store, { pid: process.pid, hostname: hostname(), acquiredAt: Date.now(), nonce: 'lost' });
    expect(await store.withLock('gh', issuer, async () => 'ok', { timeoutMs: 5000 })).toBe('ok');
  });

  it('times out behind a live lock, naming the lock, its holder and the fix', async () => {
    const store = await storeWithDir();
    const content = { pid: 4242, hostname: 'elsewhere.example', acquiredAt: Date.now(), nonce: 'n' };
    const lockFile = plantLock(store, content);
    let ran = false;
    const started = Date.now();
    const error = await rejection(
      store.withLock(
        'gh',
        issuer,
        async () => {
          ran = true;
        },
        { timeoutMs: 150 },
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(ran).toBe(false);
    expect(error.code).toBe('STORAGE_FAILED');
    expect(error.details).toMatchObject({ lockFile, reason: 'lock-timeout' });
    expect(error.message).toContain(lockFile);
    expect(error.message).toContain('pid 4242 on elsewhere.example');
    expect(error.message).toMatch(/delete/);
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toEqual(content);

    // A fresh lock still being written (empty) is waited for too.
    plantLock(store, '');
    expect((await rejection(store.withLock('gh', issuer, async () => 1, { timeoutMs: 50 }))).message).toMatch(
      /still writing it/,
    );
  });

  it('does not remove a lock that was taken over while fn ran', async () => {
    const store = await storeWithDir();
    const lockFile = store.lockFileOf('gh', issuer);
    const theirs = JSON.stringify({
      pid: 4242,
      hostname: 'elsewhere.example',
      acquiredAt: Date.now(),
      nonce: 'z',
    });
    await store.withLock('gh', issuer, async () => writeFileSync(lockFile, theirs));
    expect(readFileSync(lockFile, 'utf8')).toBe(theirs);
  });

  it('a caller timing out in the queue does not hold up the callers behind it', async () => {
    const store = await storeWithDir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const first = store.withLock('gh', issuer, async () => {
      await held;
      order.push('first');
    });
    const second = rejection(
      store.withLock('gh', issuer, async () => order.push('second'), { timeoutMs: 30 }),
    );
    const third = store.withLock('gh', issuer, async () => order.push('third'), { timeoutMs: 10_000 });
    expect((await second).message).toMatch(/another caller in this process/);
    release();
    await Promise.all([first, third]);
    expect(order).toEqual(['first', 'third']);
  });
});
