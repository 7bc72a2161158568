import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { TaskInfo } from '../../src/client/task-runner.js';
import { untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { conformanceUpstreamBin, kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { quietLog } from './modern-client.js';

/**
 * Tasks through the gateway in every combination: a client of either era (2025-11-25 session
 * tasks, or 2026-07-28 with the Tasks extension) × an upstream of either era × every form a
 * task takes — the upstream's own task (the kitchen fixture's 2025-11-25 `task_sleep`, the
 * conformance fixture's Tasks-extension `slow_compute`), a task the gateway makes of a long
 * call by the operator's `taskAfter` (the kitchen's plain `slow`, in either era), and the call
 * answered inline (a client that takes no task). Real fixture processes behind a real gateway,
 * reached by Switchboard's Connection, which runs both eras' task protocols as a client.
 */
let dir: string;
let host: Host;
let gateway: HttpGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-tasks-matrix-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [
      // A 2025-11-25 upstream with tasks of its own, and a plain slow tool under `taskAfter`.
      {
        name: 'old',
        command: process.execPath,
        args: [kitchenSinkBin, '--era', 'legacy'],
        taskAfter: { slow: 0.3, confirm: 0 },
      },
      // A 2026-07-28 upstream offering the Tasks extension.
      { name: 'new', command: process.execPath, args: [conformanceUpstreamBin, '--transport', 'stdio'] },
      // A 2026-07-28 upstream without tasks, its slow tool under `taskAfter`.
      {
        name: 'plain',
        command: process.execPath,
        args: [kitchenSinkBin, '--era', 'modern'],
        taskAfter: { slow: 0.3, confirm: 30 },
      },
    ].map((s) => normalizeServerEntry(s)),
  });
  await catalogHas(host, 'mcp__old__task_sleep');
  await catalogHas(host, 'mcp__new__slow_compute');
  await catalogHas(host, 'mcp__plain__slow');
  gateway = await startHttpGateway(
    host,
    resolveGateway({ port: 0, consent: 'off', tasks: { pollIntervalMs: 200 } }),
    { log: quietLog },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

type Era = 'legacy' | 'modern';
type Raw = Record<string, unknown>;
const TASKS = 'io.modelcontextprotocol/tasks';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const RELATED = 'io.modelcontextprotocol/related-task';
const declares = (more: Raw = {}) => ({
  _meta: { [CAPABILITIES]: { ...more, extensions: { [TASKS]: {} } } },
});
const raw = (value: unknown) => value as Raw;
const clients = new Map<Era, Connection>();

async function client(era: Era): Promise<Connection> {
  let connection = clients.get(era);
  if (!connection) {
    connection = new Connection({
      config: normalizeServerEntry({ name: 'gateway', url: gateway.url, protocol: era }),
    });
    await connection.connect();
    clients.set(era, connection);
  }
  return connection;
}
afterAll(async () => {
  for (const c of clients.values()) await c.close();
});

/** The tools the host has called upstream, in order (its `before` hook). */
const calls: string[] = [];
beforeAll(() => {
  host.useHooks({ before: (call) => void calls.push(call.name) });
});

/** Calls through the gateway as a task when `task`, noting the task statuses the client saw. */
async function call(era: Era, tool: string, args: Record<string, unknown>, task: boolean) {
  const connection = await client(era);
  const seen: TaskInfo[] = [];
  const result = await connection.callTool(tool, args, { task, onTaskStatus: (info) => seen.push(info) });
  return {
    text: result.text,
    isError: result.isError === true,
    taskIds: [...new Set(seen.map((s) => s.taskId))],
  };
}

const forms: {
  readonly form: string;
  readonly upstream: Era;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly text: RegExp;
}[] = [
  {
    form: "the upstream's own task",
    upstream: 'legacy',
    tool: 'mcp__old__task_sleep',
    args: { ms: 600 },
    text: /task done after 600ms/,
  },
  {
    form: "the upstream's own task",
    upstream: 'modern',
    tool: 'mcp__new__slow_compute',
    args: { seconds: 0.6, label: 'm' },
    text: /Computed m after 0.6s/,
  },
  {
    form: 'a long call made a task (taskAfter)',
    upstream: 'legacy',
    tool: 'mcp__old__slow',
    args: { ms: 1200 },
    text: /slow done/,
  },
  {
    form: 'a long call made a task (taskAfter)',
    upstream: 'modern',
    tool: 'mcp__plain__slow',
    args: { ms: 1200 },
    text: /slow done/,
  },
];

describe('tasks through the gateway: client era × upstream era × task form', () => {
  for (const clientEra of ['legacy', 'modern'] as const) {
    for (const f of forms) {
      it(`${clientEra} client, ${f.upstream} upstream, ${f.form}: a task of the gateway, polled to its result`, async () => {
        const outcome = await call(clientEra, f.tool, f.args, true);
        expect(outcome.text).toMatch(f.text);
        expect(outcome.isError).toBe(false);
        // One task, under the gateway's id (never the upstream's).
        expect(outcome.taskIds).toHaveLength(1);
        expect(outcome.taskIds[0]).toMatch(/^sbt-[A-Za-z0-9_-]{22}$/);
      });
      it(`${clientEra} client, ${f.upstream} upstream, ${f.form}: inline for a client that takes no task`, async () => {
        const outcome = await call(clientEra, f.tool, f.args, false);
        expect(outcome.text).toMatch(f.text);
        expect(outcome.taskIds).toEqual([]);
      });
    }
  }

  it('answers a taskAfter call that ends in time inline, even to a client that takes tasks', async () => {
    const connection = await client('modern');
    const raw = await connection.request(
      'tools/call',
      {
        name: 'mcp__old__slow',
        arguments: { ms: 10 },
        _meta: { [CAPABILITIES]: { extensions: { [TASKS]: {} } } },
      },
      untunnelTaskResult,
    );
    expect(raw.resultType).not.toBe('task');
    expect(JSON.stringify(raw.content)).toContain('slow done');
  });
});

describe('what each era sees of the gateway tasks on the wire', () => {
  it('tells a 2025 session which tools may run as tasks, and offers the 2025-11-25 capability', async () => {
    const connection = await client('legacy');
    expect(connection.capabilities?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    const tools = new Map((await connection.listTools()).items.map((t) => [t.name, raw(t).execution as Raw]));
    expect(tools.get('mcp__old__task_sleep')).toEqual({ taskSupport: 'optional' });
    expect(tools.get('mcp__old__slow')).toEqual({ taskSupport: 'optional' });
    expect(tools.get('mcp__new__slow_compute')).toEqual({ taskSupport: 'optional' });
    expect(tools.get('mcp__old__echo')).toBeUndefined();
    expect(tools.get('mcp__plain__echo')).toBeUndefined();
  });

  it('offers a 2026-07-28 client the extension, without the 2025-11-25 capability', async () => {
    const connection = await client('modern');
    expect(raw(connection.capabilities?.extensions)[TASKS]).toEqual({});
    expect(connection.capabilities?.tasks).toBeUndefined();
  });

  it('answers a 2025 task-augmented call with a Task, and tasks/result with the related-task result', async () => {
    const connection = await client('legacy');
    const created = await connection.request(
      'tools/call',
      { name: 'mcp__old__task_sleep', arguments: { ms: 50 }, task: { ttl: 120_000 } },
      raw,
    );
    const task = raw(created.task);
    expect(task).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 200 });
    expect(Date.parse(String(task.createdAt))).not.toBeNaN();
    const taskId = String(task.taskId);
    const result = await connection.request('tasks/result', { taskId }, raw);
    expect(JSON.stringify(result.content)).toContain('task done after 50ms');
    expect(raw(result._meta)[RELATED]).toEqual({ taskId });
    expect(await connection.request('tasks/get', { taskId }, raw)).toMatchObject({
      taskId,
      status: 'completed',
    });
  });

  it('refuses a 2025 task for a tool offered without one (-32601), and runs it plainly without', async () => {
    const connection = await client('legacy');
    const error = await connection
      .request('tools/call', { name: 'mcp__old__echo', arguments: { text: 'x' }, task: {} }, raw)
      .catch((e: unknown) => e);
    expect(raw(raw(error).details).rpcCode).toBe(-32601);
    expect((await connection.callTool('mcp__old__echo', { text: 'plain' })).text).toBe('plain');
  });

  it('gives a tool error as each era says it: failed on 2025-11-25, completed with isError on the extension', async () => {
    const legacy = await client('legacy');
    const created = raw(
      (await legacy.request('tools/call', { name: 'mcp__old__task_fail', arguments: {}, task: {} }, raw))
        .task,
    );
    const result = await legacy.request('tasks/result', { taskId: created.taskId }, raw);
    expect(result.isError).toBe(true);
    expect(await legacy.request('tasks/get', { taskId: created.taskId }, raw)).toMatchObject({
      status: 'failed',
      statusMessage: 'task failed on purpose',
    });

    const modern = await client('modern');
    const task = await modern.request(
      'tools/call',
      { name: 'mcp__old__task_fail', arguments: {}, ...declares() },
      untunnelTaskResult,
    );
    expect(task.resultType).toBe('task');
    const done = await pollModern(modern, String(task.taskId), (t) => t.status !== 'working');
    expect(done.status).toBe('completed');
    expect(raw(done.result).isError).toBe(true);
  });

  it("keeps an upstream's JSON-RPC error: tasks/result throws it, tasks/get shows it", async () => {
    const legacy = await client('legacy');
    const created = raw(
      (
        await legacy.request(
          'tools/call',
          { name: 'mcp__new__protocol_error_job', arguments: {}, task: {} },
          raw,
        )
      ).task,
    );
    const error = await legacy
      .request('tasks/result', { taskId: created.taskId }, raw)
      .catch((e: unknown) => e);
    expect(String(raw(error).message)).toContain('protocol_error_job crashed on purpose');
    expect(await legacy.request('tasks/get', { taskId: created.taskId }, raw)).toMatchObject({
      status: 'failed',
    });
  });
});

/** Polls a 2026-07-28 task through the gateway until `done` says so. */
async function pollModern(
  connection: Connection,
  taskId: string,
  done: (task: Raw) => boolean,
): Promise<Raw> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const task = await connection.request('tasks/get', { taskId, ...declares() }, raw);
    if (done(task) || Date.now() > deadline) return task;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a gateway task's questions reach its client", () => {
  it('a 2026-07-28 client finds them in the task and answers with tasks/update', async () => {
    const connection = await client('modern');
    const created = await connection.request(
      'tools/call',
      { name: 'mcp__old__confirm', arguments: {}, ...declares({ elicitation: { form: {} } }) },
      untunnelTaskResult,
    );
    expect(created.resultType).toBe('task');
    const taskId = String(created.taskId);
    const waiting = await pollModern(connection, taskId, (t) => t.status === 'input_required');
    expect(waiting.status).toBe('input_required');
    const [key, request] = Object.entries(raw(waiting.inputRequests))[0]!;
    expect(raw(request).method).toBe('elicitation/create');
    expect(JSON.stringify(request)).toContain('Please confirm');
    // An answer of the wrong kind is refused and changes nothing.
    const wrong = await connection
      .request('tasks/update', { taskId, inputResponses: { [key]: { roots: [] } }, ...declares() }, raw)
      .catch((e: unknown) => e);
    expect(raw(raw(wrong).details).rpcCode).toBe(-32602);
    await connection.request(
      'tasks/update',
      {
        taskId,
        inputResponses: { [key]: { action: 'accept', content: { confirm: true, name: 'Ada' } } },
        ...declares(),
      },
      raw,
    );
    const done = await pollModern(connection, taskId, (t) => t.status === 'completed');
    expect(JSON.stringify(done.result)).toContain('Ada');
  });

  it('a question before taskAfter has passed makes the call a task at once (a 2026-07-28 upstream asking)', async () => {
    const connection = await client('modern');
    const created = await connection.request(
      'tools/call',
      { name: 'mcp__plain__confirm', arguments: {}, ...declares({ elicitation: { form: {} } }) },
      untunnelTaskResult,
    );
    // Made a task by its question, not by the 30 s of its taskAfter: created waiting for the answer.
    expect(created).toMatchObject({ resultType: 'task', status: 'input_required' });
    const taskId = String(created.taskId);
    const waiting = await connection.request('tasks/get', { taskId, ...declares() }, raw);
    const [key] = Object.keys(raw(waiting.inputRequests));
    await connection.request(
      'tasks/update',
      {
        taskId,
        inputResponses: { [key!]: { action: 'accept', content: { confirm: true, name: 'Hopper' } } },
        ...declares(),
      },
      raw,
    );
    const done = await pollModern(connection, taskId, (t) => t.status === 'completed');
    expect(JSON.stringify(done.result)).toContain('Hopper');
  });

  it('a 2025 session is asked on its session, the request marked with the task', async () => {
    const asked: Raw[] = [];
    const connection = new Connection({
      config: normalizeServerEntry({ name: 'gateway', url: gateway.url, protocol: 'legacy' }),
      elicitation: async (params) => {
        asked.push(raw(params));
        return { action: 'accept', content: { confirm: true, name: 'Grace' } };
      },
    });
    await connection.connect();
    try {
      const seen: TaskInfo[] = [];
      const result = await connection.callTool(
        'mcp__old__confirm',
        {},
        { task: true, onTaskStatus: (t) => seen.push(t) },
      );
      expect(result.text).toContain('Grace');
      const taskId = seen[0]?.taskId;
      expect(taskId).toMatch(/^sbt-/);
      expect(asked).toHaveLength(1);
      expect(raw(asked[0]!._meta)[RELATED]).toEqual({ taskId });
    } finally {
      await connection.close();
    }
  });
});

describe('cancelling a gateway task', () => {
  it('cancels the upstream call, and each era reads the task as cancelled', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const connection = await client(era);
      const count = async () => Number((await connection.callTool('mcp__old__cancelled_count', {})).text);
      const before = await count();
      const params = { name: 'mcp__old__slow', arguments: { ms: 60_000 } };
      const started = calls.filter((c) => c === 'mcp__old__slow').length;
      const taskId =
        era === 'legacy'
          ? String(raw((await connection.request('tools/call', { ...params, task: {} }, raw)).task).taskId)
          : String(
              (await connection.request('tools/call', { ...params, ...declares() }, untunnelTaskResult))
                .taskId,
            );
      // Cancelled once the host has sent the call upstream.
      await pollValue(
        async () => calls.filter((c) => c === 'mcp__old__slow').length,
        (n) => n > started,
      );
      const meta = era === 'modern' ? declares() : {};
      const cancelled = await connection.request('tasks/cancel', { taskId, ...meta }, raw);
      if (era === 'legacy') expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      // The extension's cancel is an empty acknowledgement (the SDK adds its own _meta).
      else expect(Object.keys(cancelled).filter((k) => k !== '_meta')).toEqual([]);
      expect(await connection.request('tasks/get', { taskId, ...meta }, raw)).toMatchObject({
        status: 'cancelled',
      });
      // The upstream's `slow` saw its call cancelled.
      const after = await pollValue(count, (n) => n > before);
      expect(after).toBe(before + 1);
      if (era === 'legacy') {
        const again = await connection.request('tasks/cancel', { taskId }, raw).catch((e: unknown) => e);
        expect(raw(raw(again).details).rpcCode).toBe(-32602);
        const result = await connection.request('tasks/result', { taskId }, raw).catch((e: unknown) => e);
        expect(raw(raw(result).details).rpcCode).toBe(-32602);
      }
    }
  });
});

describe('a task and idempotency', () => {
  it('gives a retry with the same idempotency key the same task, not a second one', async () => {
    const connection = await client('legacy');
    const params = {
      name: 'mcp__old__task_sleep',
      arguments: { ms: 30 },
      task: {},
      _meta: { idempotencyKey: `key-${Date.now()}` },
    };
    const first = raw((await connection.request('tools/call', params, raw)).task);
    const second = raw((await connection.request('tools/call', params, raw)).task);
    expect(second.taskId).toBe(first.taskId);
  });
});

async function pollValue<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
