import {
  type JSONRPCRequest,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { RelayedRequest } from '../../client/relay.js';
import type { Host } from '../../host/host.js';
import type { StoredTask } from '../../storage/ports.js';
import type { TaskLedger } from '../tasks/task-ledger.js';
import { declaresTasks } from '../tasks/task-policy.js';
import { detailedTask, isFinished, legacyPayload, legacyTask } from '../tasks/task-shapes.js';
import { refreshRelayedTask, relayTaskRequest } from './relayed-tasks.js';

/**
 * `tasks/*` for the gateway's tasks, in both eras, each task found by its id in the store
 * (task-ledger.ts) — so any gateway process on the store answers, and one started after a
 * crash answers the truth. A task is its principal's alone: another principal's id, a forged
 * one and an expired one all get the same `-32602`.
 * - 2025-11-25 sessions: `tasks/get` (Task), `tasks/result` (waits for the end, then what the
 *   call would have returned), `tasks/cancel` (Task; a finished task is `-32602`).
 * - 2026-07-28 requests declaring `io.modelcontextprotocol/tasks` (others: `-32021`, the
 *   extension's §Error Handling): `tasks/get` (DetailedTask), `tasks/update` (answers to the
 *   task's input requests), `tasks/cancel` (empty ack).
 * A task the upstream keeps (a relayed 2026-07-28 task) is asked upstream by its own id and
 * answered under the gateway's (relayed-tasks.ts); a task the gateway runs is read from the store.
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Carries a CreateTaskResult out of a `tools/call` handler. SDK v2 has no task vocabulary on the
 * server side and validates a `tools/call` answer as a CallToolResult, which a CreateTaskResult
 * (`resultType: "task"`, or 2025-11-25's `{ task }`) is not; the gateway's server returns it
 * from outside that seam.
 */
export class TaskAnswer extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('task created');
  }
}

/** Where a created task rides as an answer value (see `keepingTasks`). */
const TASK_CREATED_KEY = 'dev.switchboard/task-created';

/**
 * Runs `run` with a created task turned into an answer value, so that what keeps answers (the
 * idempotency cache, shared as JSON between replicas) keeps tasks too; `throwingTasks` turns
 * it back.
 */
export async function keepingTasks<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TaskAnswer) return { content: [], _meta: { [TASK_CREATED_KEY]: error.result } } as T;
    throw error;
  }
}

/** `answer`, or the task it carries thrown as a {@link TaskAnswer}. */
export function throwingTasks<T>(answer: T): T {
  const created = (answer as { _meta?: Record<string, unknown> } | undefined)?._meta?.[TASK_CREATED_KEY];
  if (typeof created === 'object' && created !== null)
    throw new TaskAnswer(created as Record<string, unknown>);
  return answer;
}

/**
 * An SDK `Server` whose `tools/call` may answer with a task (see {@link TaskAnswer}), and whose
 * `server/discover` leaves out the 2025-11-25 `tasks` capability (a 2026-07-28 client reads
 * tasks from the extension; the SDK builds both handshakes from one capability set).
 */
export class TaskAwareServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method === 'server/discover') {
      return async (request, ctx) => withoutLegacyTasks(await wrapped(request, ctx));
    }
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        if (error instanceof TaskAnswer) return error.result as Result;
        throw error;
      }
    };
  }
}

function withoutLegacyTasks(result: Result): Result {
  const capabilities = (result as { capabilities?: Record<string, unknown> }).capabilities;
  if (capabilities?.tasks === undefined) return result;
  const { tasks: _legacy, ...rest } = capabilities;
  return { ...result, capabilities: rest };
}

export interface TaskRouteDeps {
  readonly host: Host;
  readonly ledger: TaskLedger;
  readonly principal: string;
  /** Whether the principal may reach `server` at all. */
  allows(server: string): boolean;
  /** The relayed parts of a 2026-07-28 request; `undefined` for a 2025 session. */
  relayed(ctx: ServerContext): RelayedRequest | undefined;
  /** Maps a failure to the client's JSON-RPC error. */
  fail(error: unknown): never;
}

const TaskIdParams = z.looseObject({ taskId: z.string() });
const TaskUpdateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/** Registers `tasks/get`, `tasks/result`, `tasks/update` and `tasks/cancel`. */
export function registerTaskRoutes(server: Server, deps: TaskRouteDeps): void {
  const { ledger } = deps;
  /** The request's era: its relayed parts (2026-07-28, the extension declared) or a 2025 session. */
  const eraOf = (ctx: ServerContext): RelayedRequest | undefined => {
    const relayed = deps.relayed(ctx);
    // The extension's methods exist only for a request that declares it (-32021 otherwise).
    if (relayed && !declaresTasks(relayed.clientCapabilities)) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    return relayed;
  };
  const find = async (taskId: string, relayed: RelayedRequest | undefined, ctx: ServerContext) => {
    const task = await ledger.read(taskId, deps.principal);
    if (task === undefined || !deps.allows(task.server)) throw unknownTask(taskId);
    if (task.kind !== 'relayed' || isFinished(task.status)) return { task };
    try {
      return await refreshRelayedTask(deps.host, ledger, task, relayed, ctx.mcpReq.signal);
    } catch (error) {
      return deps.fail(error);
    }
  };

  server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
    const relayed = eraOf(ctx);
    const { task, upstream } = await find(params.taskId, relayed, ctx);
    if (!relayed) return legacyTask(task, ledger.view) as Result;
    return (upstream ?? detailedTask(task, ledger.view)) as Result;
  });

  server.setRequestHandler('tasks/result', { params: TaskIdParams }, async (params, ctx) => {
    if (deps.relayed(ctx)) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        'tasks/result is a 2025-11-25 method; with the Tasks extension the result comes with tasks/get.',
      );
    }
    const signal = ctx.mcpReq.signal;
    for (;;) {
      const { task } = await find(params.taskId, undefined, ctx);
      if (isFinished(task.status)) return resultOf(task);
      // Woken by this process's own change at once, by another's at the next poll interval.
      await ledger.changed(task.id, ledger.view.pollIntervalMs, signal);
      if (signal.aborted)
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'The request was cancelled.');
    }
  });

  server.setRequestHandler('tasks/update', { params: TaskUpdateParams }, async (params, ctx) => {
    const relayed = eraOf(ctx);
    if (!relayed) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        'tasks/update belongs to the 2026-07-28 Tasks extension; a 2025-11-25 task asks its questions on the session.',
      );
    }
    // The SDK lifts `inputResponses` of any request into the context; the params are the fallback.
    const inputResponses = ctx.mcpReq.inputResponses ?? params.inputResponses ?? {};
    const { task } = await find(params.taskId, relayed, ctx);
    if (task.kind === 'relayed') {
      return (await forward(deps, task, 'tasks/update', { inputResponses }, relayed, ctx)) as Result;
    }
    // An update for a task that waits on nothing changes nothing (the extension's §Task Update Requests).
    if (task.status !== 'input_required') return {};
    const local = ledger.localTask(task.id);
    if (local?.answer === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${task.id} waits for input in another gateway process, which holds its questions; send tasks/update to the instance that created it.`,
      );
    }
    local.answer(inputResponses);
    return {};
  });

  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
    const relayed = eraOf(ctx);
    const { task } = await find(params.taskId, relayed, ctx);
    if (isFinished(task.status)) {
      // 2025-11-25 §Cancelling Tasks: a finished task cannot be cancelled (-32602); the extension's cancel is an ack.
      if (!relayed) throw alreadyFinished(task);
      return {};
    }
    if (task.kind === 'relayed') await forward(deps, task, 'tasks/cancel', {}, relayed, ctx);
    else ledger.localTask(task.id)?.abort('The client cancelled the task.');
    await ledger.write(task.id, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
    const after = (await ledger.read(task.id, deps.principal)) ?? task;
    if (!relayed) {
      if (after.status !== 'cancelled') throw alreadyFinished(after);
      return legacyTask(after, ledger.view) as Result;
    }
    return {};
  });
}

/** Sends a `tasks/*` request for a relayed task to its upstream, failures as the client's errors. */
async function forward(
  deps: TaskRouteDeps,
  task: StoredTask,
  method: string,
  extra: Record<string, unknown>,
  relayed: RelayedRequest | undefined,
  ctx: ServerContext,
): Promise<Record<string, unknown>> {
  try {
    return await relayTaskRequest(deps.host, task, method, extra, relayed, ctx.mcpReq.signal);
  } catch (error) {
    return deps.fail(error);
  }
}

/** 2025-11-25 `tasks/result` of a finished task: the call's result, or its error thrown. */
function resultOf(task: StoredTask): Result {
  const payload = legacyPayload(task);
  if ('result' in payload) return payload.result as Result;
  if ('cancelled' in payload) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${task.id} was cancelled; it has no result.`,
    );
  }
  throw new ProtocolError(payload.error.code, payload.error.message, payload.error.data);
}

function unknownTask(taskId: string): ProtocolError {
  const shown = taskId.length > 64 ? `${JSON.stringify(taskId.slice(0, 64))}…` : JSON.stringify(taskId);
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown task ${shown}: no task of yours has this id here (it was never created through this gateway, belongs to someone else, or expired).`,
  );
}

function alreadyFinished(task: StoredTask): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Task ${task.id} is already ${task.status}: there is nothing to cancel.`,
  );
}
