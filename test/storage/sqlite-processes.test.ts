import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/index.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-storage-proc-'));
const worker = fileURLToPath(new URL('./take-pending-worker.ts', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
  rmSync(root, { recursive: true, force: true });
});

/** Starts a worker on `file`; resolves its output lines one by one. */
function startWorker(file: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error('worker exited early');
    return line.value;
  };
  return { child, next };
}

describe('sqlite store across processes', () => {
  it('takePending from three processes hands each event out exactly once', async () => {
    const file = join(root, 'data', 'switchboard.db');
    const store = await openSqliteStore({ file });
    try {
      const total = 600;
      const appended: number[] = [];
      for (let i = 0; i < total; i++)
        appended.push(
          await store.events.append({ server: 's', method: 'm', params: i, receivedAt: new Date() }),
        );

      const workers = [startWorker(file), startWorker(file)];
      for (const w of workers) expect(await w.next()).toBe('ready');
      for (const w of workers) w.child.stdin!.write('go\n');

      const mine: number[] = [];
      for (let round = 0; round < total; round++) {
        const batch = await store.events.takePending(1);
        if (batch.length === 0) break;
        mine.push(...batch.map((e) => e.id));
      }
      const theirs = await Promise.all(workers.map(async (w) => JSON.parse(await w.next()) as number[]));
      await Promise.all(workers.map((w) => (w.child.exitCode === null ? once(w.child, 'exit') : undefined)));

      const all = [...mine, ...theirs.flat()];
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort((a, b) => a - b)).toEqual(appended);
      expect(await store.events.count('pending')).toBe(0);
    } finally {
      await store.close();
    }
  });
});
