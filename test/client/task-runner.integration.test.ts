import {
  Client,
  type JSONRPCMessage,
  type MessageExtraInfo,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mapSdkError } from '../../src/client/error-mapping.js';
import {
  runToolAsTask,
  serverSupportsToolTasks,
  type TaskEra,
  type TaskInfo,
  type TaskRpc,
  toolTaskSupport,
} from '../../src/client/task-runner.js';
import { tunnelTaskResult, untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { startTaskServer, TASKS_EXTENSION, type TaskServerHandle } from '../fixtures/task-server.js';
import { rejection } from '../helpers/rejection.js';

/**
 * The task runner against a real SDK v2 `Server` (fixture) through a real SDK v2 `Client`
 * over HTTP on 127.0.0.1, in both wire formats. The adapter below is the one the connection
 * layer needs; see `sdkTaskRpc` and `tunnelTaskResults`.
 */

const CLIENT_CAPABILITIES = { elicitation: { form: {} } };
/** Any JSON object: the runner validates task shapes itself. */
const AnyResult = z.looseObject({});
/** Installed after `connect()`: the connection's own tunnel (tool-tasks.ts) in front of the SDK. */
function tunnelTaskResults(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) throw new Error('connect the client before installing the tunnel');
  transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
    tunnelTaskResult(message);
    deliver(message, extra);
  };
}

/** The TaskRpc adapter over an SDK v2 Client: custom result schema, timeout and signal passed on. */
function sdkTaskRpc(client: Client, server: string): TaskRpc {
  return {
    async request(method, params, { signal, timeoutMs }) {
      try {
        const result = await client.request({ method, params }, AnyResult, {
          ...(signal !== undefined && { signal }),
          ...(timeoutMs !== undefined && { timeout: timeoutMs }),
        });
        return untunnelTaskResult(result);
      } catch (error) {
        throw mapSdkError(error, server, method);
      }
    },
  };
}

interface Connected {
  client: Client;
  rpc: TaskRpc;
  close(): Promise<void>;
}

async function connect(url: string, era: TaskEra, options: { tunnel?: boolean } = {}): Promise<Connected> {
  const client = new Client(
    { name: 'task-runner-test', version: '1.0.0' },
    {
      capabilities: CLIENT_CAPABILITIES,
      versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } },
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  if (era === 'modern' && options.tunnel !== false) tunnelTaskResults(transport);
  return { client, rpc: sdkTaskRpc(client, 'task-fixture'), close: () => client.close() };
}

function textOf(result: Record<string, unknown>): string | undefined {
  const content = result.content;
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  return typeof first?.text === 'string' ? first.text : undefined;
}

let fixture: TaskServerHandle;

beforeAll(async () => {
  fixture = await startTaskServer();
});

afterAll(async () => {
  await fixture.close();
});

describe.each<TaskEra>(['legacy', 'modern'])('task runner over the SDK v2 client, %s era', (era) => {
  let conn: Connected;

  beforeAll(async () => {
    conn = await connect(fixture.url, era);
  });

  afterAll(async () => {
    await conn.close();
  });

  it('sees task support in the server capabilities', () => {
    expect(serverSupportsToolTasks(conn.client.getServerCapabilities(), era)).toBe(true);
  });

  it('runs a task to completion and returns its CallToolResult', async () => {
    const statuses: TaskInfo[] = [];
    const result = await runToolAsTask(conn.rpc, {
      era,
      toolName: 'slow_compute',
      arguments: { ms: 150, text: 'computed' },
      ttlMs: 30_000,
      clientCapabilities: CLIENT_CAPABILITIES,
      onStatus: (task) => statuses.push(task),
    });
    expect(textOf(result)).toBe('computed');
    expect(statuses.map((task) => task.status)).toEqual(['working', 'completed']);
    const taskId = statuses[0]?.taskId ?? '';
    const seen = fixture.requests.filter((r) => r.params.taskId === taskId);
    const create = fixture.requests.findLast(
      (r) => r.method === 'tools/call' && r.params.name === 'slow_compute',
    );
    if (era === 'legacy') {
      expect(create?.params.task).toEqual({ ttl: 30_000 });
      expect(seen.some((r) => r.method === 'tasks/result')).toBe(true);
    } else {
      // Per-request opt-in, merged with the client's own capabilities; no task param, no tasks/result.
      expect(create?.params.task).toBeUndefined();
      expect(create?.clientCapabilities).toEqual({
        ...CLIENT_CAPABILITIES,
        extensions: { [TASKS_EXTENSION]: {} },
      });
      expect(seen.some((r) => r.method === 'tasks/result')).toBe(false);
    }
  });

  it('returns a plain result as is when the server does not make a task', async () => {
    const result = await runToolAsTask(conn.rpc, {
      era,
      toolName: 'greet',
      arguments: { name: 'Ada' },
      clientCapabilities: CLIENT_CAPABILITIES,
    });
    expect(textOf(result)).toBe('Hello, Ada!');
  });

  it('turns a failed task into TASK_FAILED with the JSON-RPC code', async () => {
    const error = await rejection(
      runToolAsTask(conn.rpc, {
        era,
        toolName: 'failing_job',
        arguments: { ms: 50 },
        clientCapabilities: CLIENT_CAPABILITIES,
      }),
    );
    expect(error.code).toBe('TASK_FAILED');
    expect(error.details.rpcCode).toBe(-32603);
    expect(error.message).toContain('backend exploded');
  });

  it('returns an isError tool result instead of throwing', async () => {
    const result = await runToolAsTask(conn.rpc, {
      era,
      toolName: 'tool_error_job',
      arguments: { ms: 50 },
      clientCapabilities: CLIENT_CAPABILITIES,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('the input was rejected');
  });

  it('cancels the task on the server when its ttl runs out', async () => {
    let taskId = '';
    const error = await rejection(
      runToolAsTask(conn.rpc, {
        era,
        toolName: 'slow_compute',
        // The extension has no way to ask for a ttl, so the fixture takes one as an argument.
        arguments: { ms: 60_000, ...(era === 'modern' && { ttlMs: 700 }) },
        ttlMs: 700,
        clientCapabilities: CLIENT_CAPABILITIES,
        onStatus: (task) => {
          taskId = task.taskId;
        },
      }),
    );
    expect(error.code).toBe('TASK_EXPIRED');
    expect(fixture.task(taskId)?.status).toBe('cancelled');
  });

  it('cancels the task on the server when the caller aborts', async () => {
    const controller = new AbortController();
    let taskId = '';
    const error = await rejection(
      runToolAsTask(conn.rpc, {
        era,
        toolName: 'slow_compute',
        arguments: { ms: 60_000 },
        signal: controller.signal,
        clientCapabilities: CLIENT_CAPABILITIES,
        onStatus: (task) => {
          taskId = task.taskId;
          controller.abort();
        },
      }),
    );
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(fixture.task(taskId)?.status).toBe('cancelled');
    expect(fixture.requests.some((r) => r.method === 'tasks/cancel' && r.params.taskId === taskId)).toBe(
      true,
    );
  });
});

describe('legacy era specifics', () => {
  it('reads execution.taskSupport from the tool list', async () => {
    const conn = await connect(fixture.url, 'legacy');
    try {
      const { tools } = await conn.client.listTools();
      const support = Object.fromEntries(tools.map((tool) => [tool.name, toolTaskSupport(tool)]));
      expect(support).toMatchObject({ greet: 'forbidden', slow_compute: 'optional' });
    } finally {
      await conn.close();
    }
  });
});

describe('modern era specifics', () => {
  it('answers inputRequests through tasks/update', async () => {
    const conn = await connect(fixture.url, 'modern');
    try {
      const asked: Record<string, unknown>[] = [];
      const result = await runToolAsTask(conn.rpc, {
        era: 'modern',
        toolName: 'ask_name',
        arguments: {},
        clientCapabilities: CLIENT_CAPABILITIES,
        onInputRequests: async (requests) => {
          asked.push({ ...requests });
          return { name: { action: 'accept', content: { name: 'Luca' } } };
        },
      });
      expect(textOf(result)).toBe('Hello, Luca!');
      expect(Object.keys(asked[0] ?? {})).toEqual(['name']);
      expect(asked).toHaveLength(1);
      const update = fixture.requests.findLast((r) => r.method === 'tasks/update');
      expect(update?.params.inputResponses).toEqual({
        name: { action: 'accept', content: { name: 'Luca' } },
      });
    } finally {
      await conn.close();
    }
  });

  // Pins what SDK v2 blocks, so the tunnel can go when these start failing.
  it('SDK v2 still rejects resultType "task" and tasks/result on a 2026-07-28 connection', async () => {
    const conn = await connect(fixture.url, 'modern', { tunnel: false });
    try {
      const optIn = {
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
      };
      await expect(
        conn.client.request(
          { method: 'tools/call', params: { name: 'slow_compute', arguments: { ms: 10 }, _meta: optIn } },
          AnyResult,
        ),
      ).rejects.toMatchObject({ code: 'UNSUPPORTED_RESULT_TYPE' });
      // The era gate throws synchronously, before any promise exists.
      expect(() =>
        conn.client.request({ method: 'tasks/result', params: { taskId: 'x' } }, AnyResult),
      ).toThrow(expect.objectContaining({ code: 'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION' }));
    } finally {
      await conn.close();
    }
  });
});
