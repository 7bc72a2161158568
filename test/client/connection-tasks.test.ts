import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import type { TaskInfo } from '../../src/client/task-runner.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../src/core/server-config.js';
import { startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { startTaskServer, type TaskServerHandle } from '../fixtures/task-server.js';

/** Tool calls run as tasks through the Connection: 2025-11-25 tasks and the 2026-07-28 extension. */
describe.each(['stdio', 'http'] as const)('2025-11-25 tasks over %s (kitchen sink)', (transport) => {
  let conn: Connection;
  let entry: RawServerEntry;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    if (transport === 'http') {
      const server = await startKitchenSinkHttp({});
      stop = server.close;
      entry = { name: 'kitchen', url: server.url };
    } else {
      entry = { name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] };
    }
    conn = new Connection({
      config: normalizeServerEntry({ ...entry, protocol: 'legacy' }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
  });

  afterAll(async () => {
    await conn.close();
    await stop();
  });

  it('runs an opted-in call as a task and polls it to its result', async () => {
    const statuses: TaskInfo[] = [];
    const r = await conn.callTool(
      'task_sleep',
      { ms: 200 },
      { task: { ttlMs: 60_000 }, onTaskStatus: (t) => statuses.push(t) },
    );
    expect(r.text).toBe('task done after 200ms');
    expect(statuses[0]?.status).toBe('working');
    expect(statuses[0]?.taskId).toBeTruthy();
  });

  it('runs the same tool synchronously when the call says task: false', async () => {
    const statuses: TaskInfo[] = [];
    const r = await conn.callTool(
      'task_sleep',
      { ms: 10 },
      { task: false, onTaskStatus: (t) => statuses.push(t) },
    );
    expect(r.text).toBe('task done after 10ms');
    expect(statuses).toEqual([]);
  });

  it('runs an optional-task tool as a task when the call says nothing, unless the entry says inline', async () => {
    const statuses: TaskInfo[] = [];
    const r = await conn.callTool('task_sleep', { ms: 10 }, { onTaskStatus: (t) => statuses.push(t) });
    expect(r.text).toBe('task done after 10ms');
    expect(statuses[0]?.taskId).toBeTruthy();
    const inline = new Connection({
      config: normalizeServerEntry({ ...entry, protocol: 'legacy', optionalTasks: 'inline' }),
      eraStore: new MemoryEraVerdictStore(),
    });
    try {
      await inline.connect();
      const seen: TaskInfo[] = [];
      const plain = await inline.callTool('task_sleep', { ms: 10 }, { onTaskStatus: (t) => seen.push(t) });
      expect(plain.text).toBe('task done after 10ms');
      expect(seen).toEqual([]);
      // Asked for, it is a task even so.
      await inline.callTool('task_sleep', { ms: 10 }, { task: true, onTaskStatus: (t) => seen.push(t) });
      expect(seen[0]?.taskId).toBeTruthy();
    } finally {
      await inline.close();
    }
  });

  it('returns the error result of a failed task', async () => {
    const r = await conn.callTool('task_fail', { ms: 50 }, { task: true });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('task failed on purpose');
  });

  it('cancels the task when the caller aborts', async () => {
    const controller = new AbortController();
    const error = await conn
      .callTool(
        'task_sleep',
        { ms: 20_000 },
        { task: true, signal: controller.signal, onTaskStatus: () => controller.abort() },
      )
      .catch((e) => e);
    expect(isSwitchboardError(error, 'REQUEST_CANCELLED')).toBe(true);
  });
});

describe('2026-07-28 Tasks extension (task server)', () => {
  let server: TaskServerHandle;
  let conn: Connection;
  const asked: unknown[] = [];

  beforeAll(async () => {
    server = await startTaskServer();
    conn = new Connection({
      config: normalizeServerEntry({ name: 'tasks', url: server.url, protocol: 'modern' }),
      eraStore: new MemoryEraVerdictStore(),
      elicitation: async (params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Luca' } };
      },
    });
    await conn.connect();
  });

  afterAll(async () => {
    await conn.close();
    await server.close();
  });

  it('declares the extension on the call, follows the task and returns its inline result', async () => {
    const statuses: string[] = [];
    const r = await conn.callTool(
      'slow_compute',
      { ms: 100, text: 'computed' },
      { task: true, onTaskStatus: (t) => statuses.push(t.status) },
    );
    expect(r.text).toBe('computed');
    expect(statuses[0]).toBe('working');
    const call = server.requests.findLast((q) => q.method === 'tools/call');
    expect(call?.clientCapabilities).toMatchObject({
      extensions: { 'io.modelcontextprotocol/tasks': {} },
      elicitation: {},
    });
  });

  it('answers a task that needs input through the elicitation handler', async () => {
    const r = await conn.callTool('ask_name', {}, { task: true });
    expect(r.text).toBe('Hello, Luca!');
    expect(asked).toHaveLength(1);
  });

  it('turns a failed task into TASK_FAILED', async () => {
    const error = await conn.callTool('failing_job', { ms: 20 }, { task: true }).catch((e) => e);
    expect(isSwitchboardError(error, 'TASK_FAILED')).toBe(true);
    expect(error.message).toContain('backend exploded');
  });

  it('keeps an isError result of a completed task', async () => {
    const r = await conn.callTool('tool_error_job', { ms: 20 }, { task: true });
    expect([r.isError, r.text]).toEqual([true, 'the input was rejected']);
  });
});
