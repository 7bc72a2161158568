import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { Random } from './fuzz-random.js';

/**
 * The audit's durability contract (docs/security.md): a call the gateway answered has its
 * audit record committed, even when the gateway is killed with SIGKILL right after. Each trial
 * runs `switchboard serve` as a real process, drives calls at it from several clients at once,
 * kills it at a seeded random moment, and counts the records in its SQLite file: never fewer
 * than the answers the clients received (more is fine: a call can be recorded and the process
 * die before its answer leaves).
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
const SEED = Number(process.env.AUDIT_KILL_SEED ?? 18_007);
const TRIALS = 4;
const CONCURRENCY = 8;

let dir: string | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function startGateway(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'sb-audit-kill-'));
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      governance: { mode: 'full-auto' },
      servers: { kitchen: { command: process.execPath, args: [kitchenSinkBin], trust: 'trusted' } },
    }),
  );
  child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', dir, '--data-dir', join(dir, 'data'), 'serve', '--port', '0'],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, HOME: dir } },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = (await lines.next()).value as string;
  expect(first).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return first.slice('listening '.length);
}

function auditedCalls(dataDir: string): number {
  const db = new BetterSqlite3(join(dataDir, 'switchboard.db'), { readonly: true });
  try {
    const row = db
      .prepare("SELECT count(*) AS n FROM audit WHERE action = 'tool_call' AND outcome = 'ok'")
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

describe('audit durability under SIGKILL', () => {
  it(`keeps the record of every answered call (${TRIALS} seeded kills, seed ${SEED})`, async () => {
    const random = new Random(SEED);
    for (let trial = 0; trial < TRIALS; trial++) {
      const url = await startGateway();
      const killAfter = 50 + random.int(250);
      const clients = await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          const c = new Connection({
            config: normalizeServerEntry({ name: 'gateway', url, protocol: 'modern' }),
          });
          await c.connect();
          return c;
        }),
      );
      // The upstream connects in the background; wait until a call goes through.
      const first = clients[0]!;
      for (let i = 0; i < 200; i++) {
        const ok = await first.callTool('mcp__kitchen__echo', { text: 'warm-up' }).then(
          () => true,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      let answered = 1;
      const killed = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      let stop = false;
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < 10_000 && !stop; i++) {
            try {
              await client.callTool('mcp__kitchen__echo', { text: `call ${i}` });
            } catch {
              return; // the gateway is gone
            }
            answered++;
            if (answered >= killAfter && !stop) {
              stop = true;
              child!.kill('SIGKILL');
            }
          }
        }),
      );
      await killed;
      await Promise.all(clients.map((c) => c.close()));
      const recorded = auditedCalls(join(dir!, 'data'));
      expect(recorded, `trial ${trial}: ${answered} answered, ${recorded} recorded`).toBeGreaterThanOrEqual(
        answered,
      );
      await rm(dir!, { recursive: true, force: true });
      dir = undefined;
      child = undefined;
    }
  }, 120_000);
});
