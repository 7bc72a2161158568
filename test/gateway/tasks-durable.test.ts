import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { startUpstreamHttp, type UpstreamHttpHandle } from '../fixtures/conformance-upstream/http.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';
import { eventually } from '../helpers/wait.js';

/**
 * Tasks outlive the gateway process: `switchboard serve` as a real child process, its tasks in
 * its store (SQLite in its data dir, or PostgreSQL), killed with SIGKILL while tasks run, then
 * started again on the same store. Polling the new process gets the truth for each kind of
 * task: a finished task keeps its result; a task the dead process was running says it failed
 * and why (never "working" forever); a task the upstream keeps (relayed) goes on at the
 * upstream, which outlived the gateway, and is followed to its end through the new process.
 * The upstreams are HTTP servers of this test, so they live on across the kill.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
type Raw = Record<string, unknown>;
const TASKS = 'io.modelcontextprotocol/tasks';
const declares = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } } };
const raw = (value: unknown) => value as Raw;

let kitchen: KitchenHttpHandle;
let upstream: UpstreamHttpHandle;
let pg: PostgresServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  kitchen = await startKitchenSinkHttp({ era: 'legacy' });
  upstream = await startUpstreamHttp();
  pg = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await kitchen?.close();
  await upstream?.close();
  await pg?.stop();
});

/** Starts `switchboard serve` on the config in `dir` and returns it with its URL. */
async function serve(
  dir: string,
  env: Record<string, string>,
  data = 'data',
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', dir, '--data-dir', join(dir, data), 'serve', '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir, ...env } },
  );
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = (await lines.next()).value as string | undefined;
  if (!first?.startsWith('listening ')) throw new Error(`serve did not start: ${first} ${stderr}`);
  return { child, url: first.slice('listening '.length) };
}

async function connect(url: string, protocol: 'legacy' | 'modern'): Promise<Connection> {
  const connection = new Connection({ config: normalizeServerEntry({ name: 'gateway', url, protocol }) });
  await connection.connect();
  return connection;
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`tasks across a kill -9 of the gateway (${store})`, () => {
    let dir: string;
    let env: Record<string, string>;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `sb-tasks-durable-${store}-`));
      env = store === 'postgres' ? { SWITCHBOARD_DATABASE_URL: await pg.createDatabase() } : {};
      await writeFile(
        join(dir, 'switchboard.json'),
        JSON.stringify({
          governance: { mode: 'full-auto' },
          gateway: { consent: 'off', tasks: { pollIntervalMs: 200 } },
          servers: {
            old: { url: kitchen.url, protocol: 'legacy' },
            new: { url: upstream.url, protocol: 'modern' },
          },
        }),
      );
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('answers the truth for every task after a restart', { timeout: 120_000 }, async () => {
      const first = await serve(dir, env);
      const legacy = await connect(first.url, 'legacy');
      const modern = await connect(first.url, 'modern');
      await eventually(
        async () => (await legacy.listTools()).items.map((t) => t.name),
        (names) => names.includes('mcp__old__task_sleep') && names.includes('mcp__new__slow_compute'),
        { what: 'listed both servers', timeoutMs: 30_000 },
      );
      const legacyTask = async (ms: number) =>
        String(
          raw(
            (
              await legacy.request(
                'tools/call',
                { name: 'mcp__old__task_sleep', arguments: { ms }, task: {} },
                raw,
              )
            ).task,
          ).taskId,
        );
      // Running in the gateway when it dies: a 2025 session's task and a 2026-07-28 client's.
      const running = await legacyTask(600_000);
      const runningModern = String(
        (
          await modern.request(
            'tools/call',
            { name: 'mcp__old__task_sleep', arguments: { ms: 600_000 }, ...declares },
            untunnelTaskResult,
          )
        ).taskId,
      );
      // Finished before it dies.
      const finished = await legacyTask(10);
      await eventually(
        () => legacy.request('tasks/get', { taskId: finished }, raw),
        (t) => t.status === 'completed',
        { what: 'finished the short task', timeoutMs: 20_000 },
      );
      // Kept by the upstream, which lives on.
      const relayed = await modern.request(
        'tools/call',
        { name: 'mcp__new__slow_compute', arguments: { seconds: 4, label: 'durable' }, ...declares },
        untunnelTaskResult,
      );
      expect(relayed.resultType).toBe('task');
      const relayedId = String(relayed.taskId);
      expect(await legacy.request('tasks/get', { taskId: running }, raw)).toMatchObject({
        status: 'working',
      });

      // On PostgreSQL, a second gateway on the same store (a replica) answers for the first's tasks.
      const peer = store === 'postgres' ? await serve(dir, env, 'data-peer') : undefined;
      const peerClient = peer && (await connect(peer.url, 'legacy'));
      if (peerClient) {
        expect(await peerClient.request('tasks/get', { taskId: running }, raw)).toMatchObject({
          status: 'working',
        });
      }

      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      await Promise.all([legacy.close().catch(() => undefined), modern.close().catch(() => undefined)]);
      if (peer && peerClient) {
        // The replica sees at once that the process running the task is gone.
        const seen = await peerClient.request('tasks/get', { taskId: running }, raw);
        expect(seen).toMatchObject({ status: 'failed' });
        expect(String(seen.statusMessage)).toContain('is no longer running');
        await peerClient.close();
        peer.child.kill('SIGTERM');
        await once(peer.child, 'exit');
      }

      const second = await serve(dir, env);
      const legacy2 = await connect(second.url, 'legacy');
      const modern2 = await connect(second.url, 'modern');
      try {
        // The dead process's work: failed at the first poll, with the reason.
        const dead = await legacy2.request('tasks/get', { taskId: running }, raw);
        expect(dead.status).toBe('failed');
        expect(String(dead.statusMessage)).toMatch(
          /gateway process that ran this task (is no longer running|was restarted)/,
        );
        const deadResult = await legacy2
          .request('tasks/result', { taskId: running }, raw)
          .catch((e: unknown) => e);
        expect(String(raw(deadResult).message)).toContain('call the tool again');
        const deadModern = await modern2.request('tasks/get', { taskId: runningModern, ...declares }, raw);
        expect(deadModern).toMatchObject({ status: 'failed', error: { code: -32603 } });

        // What finished before keeps its result.
        expect(await legacy2.request('tasks/get', { taskId: finished }, raw)).toMatchObject({
          status: 'completed',
        });
        const kept = await legacy2.request('tasks/result', { taskId: finished }, raw);
        expect(JSON.stringify(kept.content)).toContain('task done after 10ms');

        // The upstream's own task is followed to its end through the new process.
        const done = await eventually(
          () => modern2.request('tasks/get', { taskId: relayedId, ...declares }, raw),
          (t) => t.status !== 'working',
          { what: 'finished the relayed task', timeoutMs: 30_000, everyMs: 200 },
        );
        expect(done.status).toBe('completed');
        expect(JSON.stringify(done.result)).toContain('Computed durable after 4s');
      } finally {
        await Promise.all([legacy2.close(), modern2.close()]);
        second.child.kill('SIGTERM');
        await once(second.child, 'exit');
      }
    });
  });
}
