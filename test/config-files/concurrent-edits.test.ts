import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, watch } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withConfigLock } from '../../src/config-files/config-lock.js';
import { removeServerEntry } from '../../src/config-files/edit-entry.js';
import { loadConfigFile } from '../../src/config-files/load-config.js';
import { writeServerEntries } from '../../src/config-files/write-entries.js';
import { killAll, placesUnder, runCli } from '../cli/manage-cli.js';

/**
 * Edits of one config file from several processes at once: every edit holds the file's lock,
 * so none is lost and the comments stay; a writer killed in the middle of a write leaves the
 * old file or the new one, never a cut one, and its temporary file is gone after the next write.
 */
const worker = join(dirname(fileURLToPath(import.meta.url)), 'config-writer-worker.ts');
let root: string;
const newPlace = placesUnder(() => root);
const children = new Set<ChildProcess>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-concurrent-'));
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
  killAll();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const HEADER =
  '// Shared servers: keep this comment\n{\n  "servers": {\n    // first\n    "seed": { "command": "node" },\n  },\n}\n';

interface Worker {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** The exit code, once it exited (listened for from the start, so never missed). */
  readonly exited: Promise<number | null>;
  next(): Promise<string>;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    waiting.shift()?.(line);
  });
  let read = 0;
  return {
    child,
    lines,
    exited,
    next: () =>
      read < lines.length
        ? Promise.resolve(lines[read++]!)
        : new Promise((resolve, reject) => {
            const onExit = () => reject(new Error(`the worker exited after ${lines.length} lines`));
            child.once('exit', onExit);
            waiting.push((line) => {
              read++;
              child.off('exit', onExit);
              resolve(line);
            });
          }),
  };
}

describe('concurrent edits of one config file', () => {
  it('six `switchboard add` processes at once, twice over: every entry lands, comments kept', async () => {
    const place = await newPlace();
    await writeFile(place.file, HEADER);
    const names: string[] = [];
    for (let round = 0; round < 2; round++) {
      const batch = Array.from({ length: 6 }, (_, i) => `s${round}-${i}`);
      names.push(...batch);
      const results = await Promise.all(
        batch.map((name) => runCli(place, 'add', name, '--', 'node', `${name}.js`)),
      );
      for (const [i, r] of results.entries()) expect(r.code, `${batch[i]}: ${r.err.join('\n')}`).toBe(0);
    }
    const text = await readFile(place.file, 'utf8');
    expect(text).toContain('// Shared servers: keep this comment');
    expect(text).toContain('// first');
    const loaded = await loadConfigFile(place.file);
    expect(loaded.servers.map((s) => s.name).sort()).toEqual(['seed', ...names].sort());
    // The lock is gone once the edits are done; no temporary file is left.
    expect(readdirSync(place.project).sort()).toEqual(['switchboard.json']);
  }, 240_000);

  it('writers in four processes, ten edits each, interleaved with removals here: nothing is lost', async () => {
    const place = await newPlace();
    await writeFile(place.file, HEADER);
    await writeServerEntries(place.file, [{ name: 'doomed', command: 'node' }]);
    const workers = ['w0', 'w1', 'w2', 'w3'].map((prefix) => startWorker(['add', place.file, prefix, '10']));
    // An edit of this process in the middle of theirs goes through the same lock.
    await workers[0]!.next();
    expect(await removeServerEntry(place.file, 'doomed')).toBe(true);
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const loaded = await loadConfigFile(place.file);
    const expected = [
      'seed',
      ...['w0', 'w1', 'w2', 'w3'].flatMap((p) => Array.from({ length: 10 }, (_, i) => `${p}-${i}`)),
    ];
    expect(loaded.servers.map((s) => s.name).sort()).toEqual(expected.sort());
    expect(readFileSync(place.file, 'utf8')).toContain('// Shared servers: keep this comment');
  }, 240_000);

  it('two adds of one name at once: one adds it, the other is refused (no silent replace)', async () => {
    const place = await newPlace();
    const [a, b] = await Promise.all([
      runCli(place, 'add', 'same', '--', 'node', 'a.js'),
      runCli(place, 'add', 'same', '--', 'node', 'b.js'),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 2]);
    expect([...a.err, ...b.err].join('\n')).toContain('"same" is already in');
  }, 120_000);

  it('a lock left by a process that died is taken over', async () => {
    const place = await newPlace();
    await writeFile(place.file, HEADER);
    // What a writer killed while holding the lock leaves: its lock file, naming a dead pid.
    const dead = spawn(process.execPath, ['-e', '0']);
    await once(dead, 'exit');
    const lockFile = join(place.project, '.switchboard.json.lock');
    await writeFile(
      lockFile,
      JSON.stringify({ pid: dead.pid, hostname: hostname(), acquiredAt: Date.now(), nonce: 'x' }),
    );
    await writeServerEntries(place.file, [{ name: 'after', command: 'node' }]);
    expect((await loadConfigFile(place.file)).servers.map((s) => s.name)).toEqual(['seed', 'after']);
    expect(readdirSync(place.project)).toEqual(['switchboard.json']);
    // And the lock serialises callers of this process too.
    const order: string[] = [];
    await Promise.all(
      ['x', 'y'].map((id) =>
        withConfigLock(place.file, async () => {
          order.push(`in ${id}`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`out ${id}`);
        }),
      ),
    );
    expect(order).toEqual(['in x', 'out x', 'in y', 'out y']);
  });
});

describe('a writer killed mid-write', () => {
  it('leaves the old file or the new one, and its temporary file is gone after the next write', async () => {
    const place = await newPlace();
    await writeFile(place.file, HEADER);
    const size = 2_000_000;
    const started = Date.now();
    let generation = 0;
    let leftTemp = 0;
    let rounds = 0;
    // Bounded by count and time: each round lets a writer write a few times, then kills it the
    // moment its next temporary file appears, i.e. in the middle of a write.
    for (const after of [1, 2, 3, 1, 2]) {
      if (Date.now() - started > 60_000 || leftTemp >= 2) break;
      rounds += 1;
      const { child, next, exited } = startWorker([
        'rewrite',
        place.file,
        String(size),
        String(generation + 1),
      ]);
      let seen = 0;
      for (let i = 0; i < after; i++) seen = Number((await next()).split(' ')[1]);
      const watcher = watch(place.project, (_event, name) => {
        if (name?.endsWith('.tmp')) child.kill('SIGKILL');
      });
      try {
        await exited;
      } finally {
        watcher.close();
      }
      expect(child.signalCode).toBe('SIGKILL');
      const temps = readdirSync(place.project).filter((n) => n.endsWith('.tmp'));
      if (temps.length > 0) leftTemp += 1;
      // Never a cut file: it loads, with a whole description of the generation it names.
      const big = (await loadConfigFile(place.file)).servers.find((s) => s.name === 'big')!;
      const current = Number(/^g(\d+)-/.exec(big.description!)![1]);
      expect(current).toBeGreaterThanOrEqual(seen);
      expect(big.description).toBe(`g${current}-`.padEnd(size, String.fromCharCode(97 + (current % 26))));
      generation = current;
    }
    expect(rounds).toBeGreaterThanOrEqual(1);
    expect(leftTemp).toBeGreaterThanOrEqual(1);
    // The next write (any writer) removes what the dead writers left.
    await writeServerEntries(place.file, [{ name: 'next', command: 'node' }]);
    expect(readdirSync(place.project).sort()).toEqual(['switchboard.json']);
    const text = await readFile(place.file, 'utf8');
    expect(text).toContain('// Shared servers: keep this comment');
  }, 180_000);
});
