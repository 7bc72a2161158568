import { CLIENT_CAPABILITIES_META_KEY, type Task } from '@modelcontextprotocol/client';
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { describeError, isSwitchboardError, SwitchboardError } from '../core/errors.js';

/**
 * Runs one tool call as an MCP task and follows it to its end: create, poll, fetch, cancel.
 * Pure of transports: every message goes through the `TaskRpc` the caller supplies.
 *
 * Which spec text each part follows.
 *
 * Legacy era: protocol revision 2025-11-25, basic/utilities/tasks ("Tasks", experimental).
 * - §Capabilities, §Tool-Level Negotiation: `capabilities.tasks.requests.tools.call` and
 *   `execution.taskSupport` ("not present" means forbidden) → `serverSupportsToolTasks`,
 *   `toolTaskSupport`. Deciding whether to run a tool as a task is the caller's job.
 * - §Creating Tasks: `tools/call` with `params.task = { ttl? }`; the answer is a
 *   CreateTaskResult `{ task: Task }`. §Behavior Requirements (Task Support 1): a receiver
 *   without task support processes the request normally, so a plain result is returned as is.
 * - §Getting Tasks: poll `tasks/get { taskId }` → Task, honouring `pollInterval`.
 *   §Input Required Status 3: on `input_required` call `tasks/result`; the server's requests
 *   arrive on the connection (its own handlers answer) and it blocks until the task ends.
 * - §Result Retrieval 2/4: `tasks/result` returns exactly what the call would have returned,
 *   result or JSON-RPC error. §Task Status: for tool calls `failed` includes results with
 *   `isError: true`; those are returned as results (the model should see them), not thrown.
 * - §Cancelling Tasks: `tasks/cancel { taskId }` → Task; a terminal task answers -32602,
 *   which a best-effort cancel ignores. Wire shapes are the SDK's deprecated 2025-11-25
 *   schemas (`CreateTaskResultSchema`, `GetTaskResultSchema`).
 *
 * Modern era: protocol revision 2026-07-28 with the Tasks extension
 * `io.modelcontextprotocol/tasks` (SEP-2663; ext-tasks `specification/2026-07-28/tasks.md`).
 * - §Capability Negotiation: the client declares the extension in its per-request
 *   capabilities, `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`; we do so on
 *   `tools/call` and on every `tasks/*` request, because §Error Handling makes servers answer
 *   -32021 to `tasks/get`, `tasks/update`, `tasks/cancel` from a non-declaring client. The
 *   server declares it under `capabilities.extensions` (`server/discover`). Creation is
 *   server-directed: no `task` param exists and the client cannot ask for a ttl, so `ttlMs`
 *   is not sent in this era.
 * - §Polymorphic Results: `resultType: "task"` marks a CreateTaskResult, a flat
 *   `Result & Task`; any other result is the tool's own and is returned as is.
 * - §Tasks, §Task Polling: `ttlMs` (null = unlimited), `pollIntervalMs`; `tasks/get` answers a
 *   DetailedTask: `completed` inlines `result`, `failed` the JSON-RPC `error`; no `tasks/result`.
 * - §Task Update Requests: `input_required` carries `inputRequests`; answers go back in
 *   `tasks/update { taskId, inputResponses }`, and keys already presented are not presented
 *   again ("SHOULD deduplicate inputRequests keys across consecutive polls").
 * - §Task Cancellation: `tasks/cancel { taskId }` → empty ack; cooperative, and the client
 *   need not poll again afterwards.
 *
 * Both eras: the deadline is the task's ttl (else one hour), past which the spec lets the
 * server discard the task (2025 §TTL and Resource Management 5; extension §Task Polling,
 * "treat the TTL as a backstop"). The task's ttl may change while it runs; the latest counts.
 */

/** Sends requests for the task runner. Adapters over an SDK client live with the connection. */
export interface TaskRpc {
  /**
   * Sends one request on the connection and resolves with its raw result object. For the
   * modern era the `tools/call` answer must keep its `resultType` (the SDK v2 client rejects
   * `resultType: "task"` on its own, so its adapter has to route that answer around the check).
   * Rejections should be SwitchboardErrors whose `details.rpcCode` keeps a JSON-RPC error code;
   * anything else is wrapped as UPSTREAM_ERROR.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
}

/** Which wire format of tasks the connection speaks: 2025-11-25 core tasks, or the 2026 extension. */
export type TaskEra = 'legacy' | 'modern';

/** The lifecycle states shared by both eras. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** One snapshot of a task as the server reported it, with both eras' field names unified. */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** `ttl` (2025-11-25) or `ttlMs` (extension); null means unlimited. */
  readonly ttlMs: number | null;
  /** `pollInterval` (2025-11-25) or `pollIntervalMs` (extension), as the server suggested it. */
  readonly pollIntervalMs?: number;
}

/** What `runToolAsTask` needs: the call, the era, and the hooks that make it testable. */
export interface RunTaskOptions {
  readonly era: TaskEra;
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
  /** Requested ttl (legacy era only; the extension has no way to ask). Deadline = the task's ttl, else 1 h. */
  readonly ttlMs?: number;
  /** Abort → `tasks/cancel` (best effort), then reject with REQUEST_CANCELLED. */
  readonly signal?: AbortSignal;
  /** Called with the first snapshot and whenever the status or status message changes. */
  readonly onStatus?: (task: TaskInfo) => void;
  /**
   * Modern era: the connection's own client capabilities. A per-request
   * `io.modelcontextprotocol/clientCapabilities` replaces the one the SDK attaches, so the
   * extension declaration is merged into these to keep elicitation, sampling, etc. declared.
   */
  readonly clientCapabilities?: Record<string, unknown>;
  /**
   * Modern era: answers a task's `inputRequests` (keyed server→client requests such as
   * `elicitation/create`) with `inputResponses` under the same keys, sent with `tasks/update`.
   * Without it a task that needs input is cancelled and the run fails with TASK_FAILED.
   */
  readonly onInputRequests?: (
    requests: Readonly<Record<string, unknown>>,
    task: TaskInfo,
  ) => Promise<Record<string, unknown>>;
  /** Injectable for tests; must reject when `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

/** The id under which the 2026-07-28 Tasks extension is declared. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
export const MIN_POLL_INTERVAL_MS = 500;
export const MAX_POLL_INTERVAL_MS = 30_000;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Deadline of a task whose ttl is unlimited or unknown. */
export const DEFAULT_TASK_DEADLINE_MS = 60 * 60 * 1000;
const POLL_TIMEOUT_MS = 30_000;
const CANCEL_TIMEOUT_MS = 5_000;
/** Consecutive failed polls tolerated before giving up (a network blip should not kill an hour's work). */
const MAX_POLL_FAILURES = 3;
const INVALID_PARAMS = -32602;

/** The server's suggested poll interval held to [500 ms, 30 s]; 1 s when it suggested none. */
export function clampPollInterval(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return DEFAULT_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, ms));
}

/**
 * A tool's 2025-11-25 `execution.taskSupport`; absent or unknown means `forbidden` (§Tool-Level
 * Negotiation). Meaningless in the modern era, where creation is server-directed and the SDK
 * strips `execution` from tool lists.
 */
export function toolTaskSupport(tool: { execution?: unknown }): 'forbidden' | 'optional' | 'required' {
  const execution = tool.execution;
  if (!isRecord(execution)) return 'forbidden';
  const support = execution.taskSupport;
  return support === 'optional' || support === 'required' ? support : 'forbidden';
}

/**
 * Whether the server accepts task-augmented `tools/call`: `tasks.requests.tools.call` in the
 * legacy era, the `io.modelcontextprotocol/tasks` extension in the modern era.
 */
export function serverSupportsToolTasks(capabilities: unknown, era: TaskEra): boolean {
  if (!isRecord(capabilities)) return false;
  if (era === 'modern') {
    return isRecord(capabilities.extensions) && isRecord(capabilities.extensions[TASKS_EXTENSION_ID]);
  }
  const tasks = capabilities.tasks;
  if (!isRecord(tasks) || !isRecord(tasks.requests)) return false;
  const tools = tasks.requests.tools;
  return isRecord(tools) && isRecord(tools.call);
}

/**
 * Calls a tool as a task and resolves with its CallToolResult: polls at the server's interval
 * (clamped), fetches the result on `completed`, turns `failed`/`cancelled` into errors, and
 * cancels the task when the deadline passes or `signal` aborts. A server that answers the
 * call with a plain result (it chose not to make a task) gets that result returned as is.
 */
export async function runToolAsTask(rpc: TaskRpc, options: RunTaskOptions): Promise<Record<string, unknown>> {
  return new TaskRun(rpc, options).run();
}

const StatusSchema = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const JsonObjectSchema = z.record(z.string(), z.unknown());
/** The extension's `Task` and `DetailedTask` (§Tasks, §Task Status). */
const ModernTaskSchema = z.looseObject({
  taskId: z.string(),
  status: StatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().nullable(),
  pollIntervalMs: z.number().optional(),
  result: JsonObjectSchema.optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  inputRequests: JsonObjectSchema.optional(),
});

interface Snapshot {
  readonly info: TaskInfo;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  readonly inputRequests?: Record<string, unknown>;
}

class TaskRun {
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly signal: AbortSignal | undefined;
  private startedAt = 0;
  private task: TaskInfo | undefined;
  /** True once the server reported a terminal status: nothing is left to cancel. */
  private settled = false;
  private pollFailures = 0;
  private lastReported: string | undefined;
  /** `inputRequests` keys already handed to onInputRequests. */
  private readonly presented = new Set<string>();

  constructor(
    private readonly rpc: TaskRpc,
    private readonly options: RunTaskOptions,
  ) {
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
    this.signal = options.signal;
  }

  async run(): Promise<Record<string, unknown>> {
    if (this.signal?.aborted) throw this.cancelledError(this.signal.reason);
    this.startedAt = this.now();
    const { era, toolName, arguments: args, ttlMs } = this.options;
    // 2025-11-25 §Creating Tasks; the extension has no task param (creation is server-directed).
    const task = era === 'legacy' ? { task: ttlMs === undefined ? {} : { ttl: ttlMs } } : {};
    const created = await this.call(
      'tools/call',
      this.withOptIn({ name: toolName, arguments: args, ...task }),
      ttlMs ?? DEFAULT_TASK_DEADLINE_MS,
    );
    const first = this.parseCreated(created);
    if (first === undefined) return created;
    try {
      return await this.follow(first);
    } catch (error) {
      if (!this.settled) await this.cancelQuietly();
      throw error;
    }
  }

  private async follow(first: Snapshot): Promise<Record<string, unknown>> {
    let snapshot = first;
    // A CreateTaskResult is a bare Task: a task created already terminal has its result or
    // error only on tasks/get (extension §Task Creation).
    if (this.options.era === 'modern' && isTerminal(first.info.status)) {
      this.observe(first);
      snapshot = await this.poll();
    }
    for (;;) {
      this.observe(snapshot);
      const outcome = await this.settle(snapshot);
      if (outcome !== undefined) return outcome;
      this.checkDeadline();
      await this.pause(snapshot.info.pollIntervalMs);
      snapshot = await this.poll();
    }
  }

  /** Resolves with the final result, throws for failed/cancelled, or undefined to keep polling. */
  private async settle(snapshot: Snapshot): Promise<Record<string, unknown> | undefined> {
    const { info } = snapshot;
    switch (info.status) {
      case 'working':
        return undefined;
      case 'input_required':
        return this.options.era === 'legacy' ? this.awaitLegacyInput() : this.answerInput(snapshot);
      case 'cancelled':
        this.settled = true;
        throw new SwitchboardError(
          'TASK_CANCELLED',
          `Task ${info.taskId} of tool "${this.options.toolName}" was cancelled on the server${suffix(info.statusMessage)}. ` +
            'It returned no result; call the tool again if the work is still needed.',
          { details: this.details() },
        );
      case 'completed':
        this.settled = true;
        if (this.options.era === 'legacy')
          return this.call('tasks/result', { taskId: info.taskId }, this.remaining());
        if (snapshot.result === undefined) {
          throw this.invalid('tasks/get', 'a completed task carries no result');
        }
        return snapshot.result;
      case 'failed':
        this.settled = true;
        return this.options.era === 'legacy' ? this.legacyFailure(info) : this.failure(info, snapshot.error);
    }
  }

  /** 2025-11-25 `failed`: tasks/result says why; an `isError` tool result is returned, not thrown. */
  private async legacyFailure(info: TaskInfo): Promise<Record<string, unknown>> {
    let result: Record<string, unknown>;
    try {
      result = await this.call('tasks/result', { taskId: info.taskId }, this.remaining());
    } catch (error) {
      if (isSwitchboardError(error, 'REQUEST_CANCELLED')) throw error;
      const rpcCode = rpcCodeOf(error);
      const rpcError =
        rpcCode === undefined ? undefined : { code: rpcCode, message: innermostMessage(error) };
      return this.failure(info, rpcError, error);
    }
    if (result.isError === true) return result;
    return this.failure(info, undefined);
  }

  private failure(info: TaskInfo, rpcError: Snapshot['error'], cause?: unknown): never {
    const reason = rpcError?.message ?? info.statusMessage;
    throw new SwitchboardError(
      'TASK_FAILED',
      `Task ${info.taskId} of tool "${this.options.toolName}" failed${suffix(reason)}. ` +
        "Check the arguments and the server's log; retry if the failure looks transient.",
      {
        cause,
        details: {
          ...this.details(),
          ...(rpcError !== undefined && { rpcCode: rpcError.code, rpcData: rpcError.data }),
        },
      },
    );
  }

  /** 2025-11-25 `input_required`: tasks/result carries the server's requests and blocks to the end. */
  private async awaitLegacyInput(): Promise<Record<string, unknown> | undefined> {
    const taskId = this.requireTask().taskId;
    try {
      const result = await this.call('tasks/result', { taskId }, this.remaining());
      this.settled = true;
      return result;
    } catch (error) {
      // A task that ended in error shows it on the next poll; anything else counts as a failed poll.
      if (isSwitchboardError(error, 'REQUEST_CANCELLED')) throw error;
      this.notePollFailure(error);
      return undefined;
    }
  }

  /** Extension `input_required`: answer new `inputRequests` keys with one `tasks/update`. */
  private async answerInput(snapshot: Snapshot): Promise<undefined> {
    const pending = Object.entries(snapshot.inputRequests ?? {}).filter(([k]) => !this.presented.has(k));
    if (pending.length === 0) return undefined;
    const handler = this.options.onInputRequests;
    if (handler === undefined) {
      throw new SwitchboardError(
        'TASK_FAILED',
        `Task ${snapshot.info.taskId} of tool "${this.options.toolName}" needs input from the client ` +
          `(${pending.map(([key]) => key).join(', ')}) and no input handler was given, so it was cancelled. ` +
          'Pass onInputRequests, or call the tool without a task.',
        { details: { ...this.details(), reason: 'input_required' } },
      );
    }
    for (const [key] of pending) this.presented.add(key);
    const inputResponses = await handler(Object.fromEntries(pending), snapshot.info);
    await this.call(
      'tasks/update',
      this.withOptIn({ taskId: snapshot.info.taskId, inputResponses }),
      POLL_TIMEOUT_MS,
    );
    return undefined;
  }

  private async poll(): Promise<Snapshot> {
    const taskId = this.requireTask().taskId;
    for (;;) {
      let raw: Record<string, unknown>;
      try {
        raw = await this.call('tasks/get', this.withOptIn({ taskId }), POLL_TIMEOUT_MS);
      } catch (error) {
        if (isSwitchboardError(error, 'REQUEST_CANCELLED')) throw error;
        if (rpcCodeOf(error) === INVALID_PARAMS) {
          // Both eras answer -32602 for a task the server no longer knows: expired or purged.
          this.settled = true;
          throw new SwitchboardError(
            'TASK_EXPIRED',
            `The server no longer knows task ${taskId} of tool "${this.options.toolName}" (it expired or was purged). ` +
              'Call the tool again; ask for a longer ttl if the server allows it.',
            { cause: error, details: this.details() },
          );
        }
        this.notePollFailure(error);
        this.checkDeadline();
        await this.pause(this.task?.pollIntervalMs);
        continue;
      }
      this.pollFailures = 0;
      return this.parseTask('tasks/get', raw);
    }
  }

  private notePollFailure(error: unknown): void {
    this.pollFailures += 1;
    if (this.pollFailures >= MAX_POLL_FAILURES) throw error;
  }

  private observe(snapshot: Snapshot): void {
    this.task = snapshot.info;
    const key = `${snapshot.info.status}\u0000${snapshot.info.statusMessage ?? ''}`;
    if (key === this.lastReported) return;
    this.lastReported = key;
    this.options.onStatus?.(snapshot.info);
  }

  private deadline(): number {
    return this.startedAt + (this.task?.ttlMs ?? DEFAULT_TASK_DEADLINE_MS);
  }

  private remaining(): number {
    return Math.max(1_000, this.deadline() - this.now());
  }

  private checkDeadline(): void {
    if (this.now() < this.deadline()) return;
    const task = this.requireTask();
    const limit = task.ttlMs ?? DEFAULT_TASK_DEADLINE_MS;
    throw new SwitchboardError(
      'TASK_EXPIRED',
      `Task ${task.taskId} of tool "${this.options.toolName}" did not finish within ${limit} ms ` +
        `(${task.ttlMs === null ? 'the default deadline; its ttl is unlimited' : 'its ttl'}) and was cancelled. ` +
        'Call it again with a longer ttl if the server allows one, or check why the server is slow.',
      { details: { ...this.details(), deadlineMs: limit } },
    );
  }

  /** Waits one poll interval, never past the deadline (one last poll happens at the deadline). */
  private async pause(intervalMs: number | undefined): Promise<void> {
    const wait = Math.min(clampPollInterval(intervalMs), Math.max(0, this.deadline() - this.now()));
    try {
      await this.sleep(wait, this.signal);
    } catch (error) {
      if (this.signal?.aborted) throw this.cancelledError(error);
      throw error;
    }
  }

  private async call(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.rpc.request(method, params, {
        timeoutMs,
        ...(this.signal !== undefined && { signal: this.signal }),
      });
    } catch (error) {
      if (this.signal?.aborted) throw this.cancelledError(error);
      if (error instanceof SwitchboardError) throw error;
      const rpcCode = rpcCodeOf(error);
      throw new SwitchboardError(
        'UPSTREAM_ERROR',
        `${method} for tool "${this.options.toolName}" failed: ${describeError(error)}. Check the server's log.`,
        { cause: error, details: { ...this.details(), ...(rpcCode !== undefined && { rpcCode }) } },
      );
    }
  }

  /** Best effort: the caller's signal may be aborted already, so the cancel goes without it. */
  private async cancelQuietly(): Promise<void> {
    if (this.task === undefined) return;
    const params = this.withOptIn({ taskId: this.task.taskId });
    // The run has already failed for a better reason; a cancel that fails changes nothing.
    await this.rpc.request('tasks/cancel', params, { timeoutMs: CANCEL_TIMEOUT_MS }).catch(() => undefined);
  }

  private cancelledError(cause: unknown): SwitchboardError {
    const task = this.task;
    return new SwitchboardError(
      'REQUEST_CANCELLED',
      `The call to tool "${this.options.toolName}" was cancelled by the caller` +
        `${task === undefined ? '' : `; task ${task.taskId} was asked to stop (tasks/cancel)`}. ` +
        'Nothing to do unless the result is still wanted: then call the tool again.',
      { cause, details: this.details() },
    );
  }

  /** Modern era: declare the extension in this request's client capabilities (§Capability Negotiation). */
  private withOptIn(params: Record<string, unknown>): Record<string, unknown> {
    if (this.options.era === 'legacy') return params;
    const base = this.options.clientCapabilities ?? {};
    const extensions = isRecord(base.extensions) ? base.extensions : {};
    const capabilities = { ...base, extensions: { ...extensions, [TASKS_EXTENSION_ID]: {} } };
    return { ...params, _meta: { [CLIENT_CAPABILITIES_META_KEY]: capabilities } };
  }

  /** The first snapshot, or undefined when the server answered with the tool's own result. */
  private parseCreated(raw: Record<string, unknown>): Snapshot | undefined {
    if (this.options.era === 'modern') {
      return raw.resultType === 'task' ? this.parseTask('tools/call', raw) : undefined;
    }
    if (!('task' in raw)) return undefined;
    const parsed = CreateTaskResultSchema.safeParse(raw);
    if (!parsed.success) throw this.invalid('tools/call', parsed.error.message);
    return { info: fromLegacyTask(parsed.data.task) };
  }

  private parseTask(method: string, raw: Record<string, unknown>): Snapshot {
    if (this.options.era === 'legacy') {
      const parsed = GetTaskResultSchema.safeParse(raw);
      if (!parsed.success) throw this.invalid(method, parsed.error.message);
      return { info: fromLegacyTask(parsed.data) };
    }
    const parsed = ModernTaskSchema.safeParse(raw);
    if (!parsed.success) throw this.invalid(method, parsed.error.message);
    const task = parsed.data;
    return {
      info: taskInfo(task),
      ...(task.result !== undefined && { result: task.result }),
      ...(task.error !== undefined && { error: task.error }),
      ...(task.inputRequests !== undefined && { inputRequests: task.inputRequests }),
    };
  }

  private invalid(method: string, problem: string): SwitchboardError {
    return new SwitchboardError(
      'UPSTREAM_ERROR',
      `The server's answer to ${method} for tool "${this.options.toolName}" is not a valid task (${this.options.era} era): ${problem}. ` +
        'The server does not follow the tasks spec; call the tool without a task.',
      { details: this.details() },
    );
  }

  private requireTask(): TaskInfo {
    if (this.task === undefined) throw new Error('task-runner: no task yet (internal error)');
    return this.task;
  }
  private details(): Record<string, unknown> {
    return {
      toolName: this.options.toolName,
      era: this.options.era,
      ...(this.task !== undefined && { taskId: this.task.taskId }),
    };
  }
}

function fromLegacyTask(task: Task): TaskInfo {
  return taskInfo({ ...task, ttlMs: task.ttl, pollIntervalMs: task.pollInterval });
}

/** Only the TaskInfo fields, without undefined optionals. */
function taskInfo(
  task: Omit<TaskInfo, 'statusMessage' | 'pollIntervalMs'> & {
    statusMessage?: string | undefined;
    pollIntervalMs?: number | undefined;
  },
): TaskInfo {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task;
  return {
    taskId,
    status,
    createdAt,
    lastUpdatedAt,
    ttlMs,
    ...(statusMessage !== undefined && { statusMessage }),
    ...(pollIntervalMs !== undefined && { pollIntervalMs }),
  };
}

function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The JSON-RPC code of a rejection: `details.rpcCode` of a SwitchboardError, else a numeric `code`. */
function rpcCodeOf(error: unknown): number | undefined {
  const code =
    error instanceof SwitchboardError ? error.details.rpcCode : (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The server's own words: an adapter's SwitchboardError wraps the JSON-RPC error as its cause. */
function innermostMessage(error: unknown): string {
  if (error instanceof SwitchboardError && error.cause instanceof Error) return error.cause.message;
  return describeError(error);
}

function suffix(text: string | undefined): string {
  return text === undefined || text === '' ? '' : `: ${text}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
