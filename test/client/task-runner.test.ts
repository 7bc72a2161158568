import { describe, expect, it } from 'vitest';
import {
  clampPollInterval,
  DEFAULT_TASK_DEADLINE_MS,
  type RunTaskOptions,
  runToolAsTask,
  serverSupportsToolTasks,
  TASKS_EXTENSION_ID,
  type TaskInfo,
  type TaskRpc,
  toolTaskSupport,
} from '../../src/client/task-runner.js';
import { SwitchboardError } from '../../src/core/errors.js';
import { rejection } from '../helpers/rejection.js';

type Params = Record<string, unknown>;
type RpcOptions = { signal?: AbortSignal; timeoutMs?: number };
type Reply = Params | Error | ((params: Params, options: RpcOptions) => Params | Promise<Params>);

/** A scripted TaskRpc: each method answers its replies in order, repeating the last one. */
class FakeRpc implements TaskRpc {
  readonly calls: { method: string; params: Params; options: RpcOptions }[] = [];

  constructor(private readonly script: Record<string, Reply[]>) {}

  async request(method: string, params: Params, options: RpcOptions): Promise<Params> {
    this.calls.push({ method, params, options });
    const queue = this.script[method];
    const reply = queue !== undefined && queue.length > 1 ? queue.shift() : queue?.[0];
    if (reply === undefined) throw new Error(`unexpected ${method}`);
    if (reply instanceof Error) throw reply;
    return typeof reply === 'function' ? reply(params, options) : reply;
  }

  methods(): string[] {
    return this.calls.map((call) => call.method);
  }
}

/** A clock that only moves when the runner sleeps. */
function fakeClock() {
  let time = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      time += ms;
    },
  };
}

const ISO = '2026-11-29T10:00:00Z';

function legacyTask(status: string, extra: Params = {}): Params {
  return {
    taskId: 't1',
    status,
    createdAt: ISO,
    lastUpdatedAt: ISO,
    ttl: 60_000,
    pollInterval: 1_000,
    ...extra,
  };
}

function modernTask(status: string, extra: Params = {}): Params {
  return {
    taskId: 't1',
    status,
    createdAt: ISO,
    lastUpdatedAt: ISO,
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...extra,
  };
}

const DONE = { content: [{ type: 'text', text: 'done' }] };

/** A JSON-RPC error as an adapter built on `mapSdkError` reports it. */
function rpcError(code: number, message: string): SwitchboardError {
  return new SwitchboardError('UPSTREAM_ERROR', message, { details: { rpcCode: code } });
}

function run(rpc: TaskRpc, clock: ReturnType<typeof fakeClock>, options: Partial<RunTaskOptions> = {}) {
  return runToolAsTask(rpc, {
    era: 'legacy',
    toolName: 'slow',
    arguments: { n: 1 },
    sleep: clock.sleep,
    now: clock.now,
    ...options,
  });
}

describe('clampPollInterval', () => {
  it('defaults to 1 s and holds the server value to [500 ms, 30 s]', () => {
    expect(clampPollInterval(undefined)).toBe(1_000);
    expect(clampPollInterval(Number.NaN)).toBe(1_000);
    expect(clampPollInterval(50)).toBe(500);
    expect(clampPollInterval(-1)).toBe(500);
    expect(clampPollInterval(2_500)).toBe(2_500);
    expect(clampPollInterval(120_000)).toBe(30_000);
  });
});

describe('toolTaskSupport', () => {
  it('reads execution.taskSupport; absent or unknown is forbidden', () => {
    expect(toolTaskSupport({})).toBe('forbidden');
    expect(toolTaskSupport({ execution: {} })).toBe('forbidden');
    expect(toolTaskSupport({ execution: { taskSupport: 'optional' } })).toBe('optional');
    expect(toolTaskSupport({ execution: { taskSupport: 'required' } })).toBe('required');
    expect(toolTaskSupport({ execution: { taskSupport: 'sometimes' } })).toBe('forbidden');
    expect(toolTaskSupport({ execution: 'required' })).toBe('forbidden');
  });
});

describe('serverSupportsToolTasks', () => {
  it('legacy: needs tasks.requests.tools.call', () => {
    expect(serverSupportsToolTasks({ tasks: { requests: { tools: { call: {} } } } }, 'legacy')).toBe(true);
    expect(serverSupportsToolTasks({ tasks: { list: {}, cancel: {} } }, 'legacy')).toBe(false);
    expect(serverSupportsToolTasks({ extensions: { [TASKS_EXTENSION_ID]: {} } }, 'legacy')).toBe(false);
    expect(serverSupportsToolTasks(undefined, 'legacy')).toBe(false);
  });

  it('modern: needs the io.modelcontextprotocol/tasks extension', () => {
    expect(serverSupportsToolTasks({ extensions: { [TASKS_EXTENSION_ID]: {} } }, 'modern')).toBe(true);
    expect(serverSupportsToolTasks({ tasks: { requests: { tools: { call: {} } } } }, 'modern')).toBe(false);
    expect(serverSupportsToolTasks({ extensions: {} }, 'modern')).toBe(false);
  });
});

describe('runToolAsTask, legacy era (2025-11-25)', () => {
  it('creates with params.task, polls at the clamped interval, then reads tasks/result', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working', { pollInterval: 2_000 }) }],
      'tasks/get': [legacyTask('working', { pollInterval: 100 }), legacyTask('completed')],
      'tasks/result': [DONE],
    });
    const seen: TaskInfo[] = [];
    const result = await run(rpc, clock, { ttlMs: 90_000, onStatus: (task) => seen.push(task) });

    expect(result).toEqual(DONE);
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/result']);
    expect(rpc.calls[0]?.params).toEqual({ name: 'slow', arguments: { n: 1 }, task: { ttl: 90_000 } });
    expect(rpc.calls[1]?.params).toEqual({ taskId: 't1' });
    expect(clock.sleeps).toEqual([2_000, 500]);
    // Reported on the first snapshot and on changes only (the second `working` is not news).
    expect(seen.map((task) => task.status)).toEqual(['working', 'completed']);
    expect(seen[0]).toMatchObject({ taskId: 't1', ttlMs: 60_000, pollIntervalMs: 2_000 });
  });

  it('sends an empty task object without ttlMs and polls every second without pollInterval', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working', { pollInterval: undefined }) }],
      'tasks/get': [legacyTask('working', { pollInterval: undefined }), legacyTask('completed')],
      'tasks/result': [DONE],
    });
    await run(rpc, clock);
    expect(rpc.calls[0]?.params.task).toEqual({});
    expect(clock.sleeps).toEqual([1_000, 1_000]);
  });

  it('returns a plain CallToolResult as is when no task was created', async () => {
    const rpc = new FakeRpc({ 'tools/call': [DONE] });
    expect(await run(rpc, fakeClock())).toEqual(DONE);
    expect(rpc.methods()).toEqual(['tools/call']);
  });

  it('turns failed into TASK_FAILED with the error tasks/result reports', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [legacyTask('failed', { statusMessage: 'boom' })],
      'tasks/result': [rpcError(-32603, 'backend exploded')],
    });
    const error = await rejection(run(rpc, fakeClock()));
    expect(error.code).toBe('TASK_FAILED');
    expect(error.details).toMatchObject({ taskId: 't1', rpcCode: -32603 });
    expect(error.message).toContain('backend exploded');
    expect(rpc.methods()).not.toContain('tasks/cancel');
  });

  it('returns an isError result of a failed task (tool errors count as failed in 2025-11-25)', async () => {
    const toolError = { content: [{ type: 'text', text: 'bad input' }], isError: true };
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [legacyTask('failed')],
      'tasks/result': [toolError],
    });
    expect(await run(rpc, fakeClock())).toEqual(toolError);
  });

  it('turns cancelled into TASK_CANCELLED without sending a cancel', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [legacyTask('cancelled', { statusMessage: 'operator stopped it' })],
    });
    const error = await rejection(run(rpc, fakeClock()));
    expect(error.code).toBe('TASK_CANCELLED');
    expect(error.message).toContain('operator stopped it');
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get']);
  });

  it('calls tasks/result on input_required (the server asks through that stream)', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [legacyTask('input_required')],
      'tasks/result': [DONE],
    });
    expect(await run(rpc, fakeClock())).toEqual(DONE);
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/result']);
  });

  it('rejects a malformed task with UPSTREAM_ERROR', async () => {
    const rpc = new FakeRpc({ 'tools/call': [{ task: { taskId: 't1', status: 'running' } }] });
    expect((await rejection(run(rpc, fakeClock()))).code).toBe('UPSTREAM_ERROR');
  });
});

describe('runToolAsTask, modern era (io.modelcontextprotocol/tasks)', () => {
  const CAPS = { elicitation: { form: {} }, extensions: { 'example.com/other': {} } };
  const OPT_IN = {
    'io.modelcontextprotocol/clientCapabilities': {
      elicitation: { form: {} },
      extensions: { 'example.com/other': {}, [TASKS_EXTENSION_ID]: {} },
    },
  };

  it('opts in on every request, polls tasks/get and returns the inlined result', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working', { pollIntervalMs: 700 }) }],
      // What the SDK hands back: resultType already lifted off.
      'tasks/get': [modernTask('working'), modernTask('completed', { result: DONE })],
    });
    const result = await run(rpc, clock, { era: 'modern', clientCapabilities: CAPS, ttlMs: 5_000 });

    expect(result).toEqual(DONE);
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get']);
    expect(rpc.calls[0]?.params).toEqual({ name: 'slow', arguments: { n: 1 }, _meta: OPT_IN });
    expect(rpc.calls[1]?.params).toEqual({ taskId: 't1', _meta: OPT_IN });
    expect(clock.sleeps).toEqual([700, 1_000]);
  });

  it('returns results without resultType "task" as is', async () => {
    const plain = { resultType: 'complete', ...DONE };
    for (const reply of [DONE, plain]) {
      const rpc = new FakeRpc({ 'tools/call': [reply] });
      expect(await run(rpc, fakeClock(), { era: 'modern' })).toEqual(reply);
    }
  });

  it('fetches a task created already terminal at once', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('completed') }],
      'tasks/get': [modernTask('completed', { result: DONE })],
    });
    expect(await run(rpc, clock, { era: 'modern' })).toEqual(DONE);
    expect(clock.sleeps).toEqual([]);
  });

  it('turns failed into TASK_FAILED with the inlined JSON-RPC error', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [modernTask('failed', { error: { code: -32603, message: 'rate limited' } })],
    });
    const error = await rejection(run(rpc, fakeClock(), { era: 'modern' }));
    expect(error.code).toBe('TASK_FAILED');
    expect(error.details.rpcCode).toBe(-32603);
    expect(error.message).toContain('rate limited');
  });

  it('turns cancelled into TASK_CANCELLED', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [modernTask('cancelled')],
    });
    expect((await rejection(run(rpc, fakeClock(), { era: 'modern' }))).code).toBe('TASK_CANCELLED');
  });

  it('rejects a completed task without a result', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [modernTask('completed')],
    });
    expect((await rejection(run(rpc, fakeClock(), { era: 'modern' }))).code).toBe('UPSTREAM_ERROR');
  });

  it('answers new inputRequests keys once with tasks/update', async () => {
    const ask = { method: 'elicitation/create', params: { mode: 'form', message: 'Name?' } };
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [
        modernTask('input_required', { inputRequests: { name: ask } }),
        modernTask('input_required', { inputRequests: { name: ask } }), // not yet processed: no second answer
        modernTask('completed', { result: DONE }),
      ],
      'tasks/update': [{}],
    });
    const asked: Params[] = [];
    const result = await run(rpc, fakeClock(), {
      era: 'modern',
      onInputRequests: async (requests) => {
        asked.push({ ...requests });
        return { name: { action: 'accept', content: { name: 'Luca' } } };
      },
    });
    expect(result).toEqual(DONE);
    expect(asked).toEqual([{ name: ask }]);
    const updates = rpc.calls.filter((call) => call.method === 'tasks/update');
    expect(updates.map((call) => call.params.inputResponses)).toEqual([
      { name: { action: 'accept', content: { name: 'Luca' } } },
    ]);
    expect(updates[0]?.params._meta).toBeDefined();
  });

  it('cancels a task that needs input when there is no input handler', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [modernTask('input_required', { inputRequests: { name: {} } })],
      'tasks/cancel': [{}],
    });
    const error = await rejection(run(rpc, fakeClock(), { era: 'modern' }));
    expect(error.code).toBe('TASK_FAILED');
    expect(error.details.reason).toBe('input_required');
    expect(rpc.methods().at(-1)).toBe('tasks/cancel');
  });
});

describe('runToolAsTask, deadline', () => {
  it('polls one last time at the ttl, then cancels and rejects with TASK_EXPIRED', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working', { ttl: 1_200, pollInterval: 500 }) }],
      'tasks/get': [legacyTask('working', { ttl: 1_200, pollInterval: 500 })],
      'tasks/cancel': [legacyTask('cancelled')],
    });
    const error = await rejection(run(rpc, clock));
    expect(error.code).toBe('TASK_EXPIRED');
    expect(error.details).toMatchObject({ taskId: 't1', deadlineMs: 1_200 });
    expect(clock.sleeps).toEqual([500, 500, 200]);
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/cancel']);
    expect(rpc.calls.at(-1)?.options.signal).toBeUndefined();
  });

  it('uses one hour when the ttl is unlimited', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [
        { resultType: 'task', ...modernTask('working', { ttlMs: null, pollIntervalMs: 30_000 }) },
      ],
      'tasks/get': [modernTask('working', { ttlMs: null, pollIntervalMs: 30_000 })],
      'tasks/cancel': [{}],
    });
    const error = await rejection(run(rpc, clock, { era: 'modern' }));
    expect(error.code).toBe('TASK_EXPIRED');
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(DEFAULT_TASK_DEADLINE_MS);
    expect(clock.sleeps).toHaveLength(DEFAULT_TASK_DEADLINE_MS / 30_000);
  });

  it('follows a ttl the server changes while the task runs', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working', { ttl: 1_000, pollInterval: 500 }) }],
      'tasks/get': [
        legacyTask('working', { ttl: 10_000, pollInterval: 500 }),
        legacyTask('working', { ttl: 10_000, pollInterval: 500 }),
        legacyTask('working', { ttl: 10_000, pollInterval: 500 }),
        legacyTask('completed'),
      ],
      'tasks/result': [DONE],
    });
    expect(await run(rpc, clock)).toEqual(DONE);
    expect(clock.sleeps).toEqual([500, 500, 500, 500]);
  });

  it('still rejects with TASK_EXPIRED when the cancel fails', async () => {
    const clock = fakeClock();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working', { ttl: 600, pollInterval: 500 }) }],
      'tasks/get': [legacyTask('working', { ttl: 600, pollInterval: 500 })],
      'tasks/cancel': [rpcError(-32602, 'already terminal')],
    });
    expect((await rejection(run(rpc, clock))).code).toBe('TASK_EXPIRED');
  });
});

describe('runToolAsTask, abort', () => {
  it('sends nothing when aborted before the start', async () => {
    const rpc = new FakeRpc({});
    const error = await rejection(run(rpc, fakeClock(), { signal: AbortSignal.abort() }));
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(rpc.calls).toEqual([]);
  });

  it('cancels the task when aborted while waiting to poll', async () => {
    const controller = new AbortController();
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/cancel': [legacyTask('cancelled')],
    });
    const error = await rejection(
      run(rpc, fakeClock(), { signal: controller.signal, onStatus: () => controller.abort() }),
    );
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(error.message).toContain('t1');
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/cancel']);
    expect(rpc.calls[1]?.options.signal).toBeUndefined();
  });

  it('cancels the task when aborted during a poll', async () => {
    const controller = new AbortController();
    const rpc = new FakeRpc({
      'tools/call': [{ resultType: 'task', ...modernTask('working') }],
      'tasks/get': [
        () => {
          controller.abort();
          throw new Error('aborted');
        },
      ],
      'tasks/cancel': [{}],
    });
    const error = await rejection(run(rpc, fakeClock(), { era: 'modern', signal: controller.signal }));
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/cancel']);
  });

  it('has no task to cancel when aborted during the tools/call', async () => {
    const controller = new AbortController();
    const rpc = new FakeRpc({
      'tools/call': [
        (_params, options) => {
          controller.abort();
          expect(options.signal).toBe(controller.signal);
          throw new Error('aborted');
        },
      ],
    });
    const error = await rejection(run(rpc, fakeClock(), { signal: controller.signal }));
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(rpc.methods()).toEqual(['tools/call']);
  });
});

describe('runToolAsTask, failing polls', () => {
  it('rides out a transient poll failure', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [new Error('socket hang up'), legacyTask('completed')],
      'tasks/result': [DONE],
    });
    expect(await run(rpc, fakeClock())).toEqual(DONE);
  });

  it('gives up after three failed polls in a row, wraps the error and cancels', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [Object.assign(new Error('overloaded'), { code: -32000 })],
      'tasks/cancel': [legacyTask('cancelled')],
    });
    const error = await rejection(run(rpc, fakeClock()));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.details.rpcCode).toBe(-32000);
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get', 'tasks/cancel']);
  });

  it('passes a SwitchboardError from the adapter through unchanged', async () => {
    const timeout = new SwitchboardError('REQUEST_TIMEOUT', 'slow server');
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [timeout],
      'tasks/cancel': [legacyTask('cancelled')],
    });
    expect(await rejection(run(rpc, fakeClock()))).toBe(timeout);
  });

  it('treats -32602 on tasks/get as a task the server no longer knows', async () => {
    const rpc = new FakeRpc({
      'tools/call': [{ task: legacyTask('working') }],
      'tasks/get': [rpcError(-32602, 'Failed to retrieve task: Task has expired')],
    });
    const error = await rejection(run(rpc, fakeClock()));
    expect(error.code).toBe('TASK_EXPIRED');
    expect(rpc.methods()).toEqual(['tools/call', 'tasks/get']);
  });
});
