import { randomBytes } from 'node:crypto';
import { type CallToolResult, RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';
import type { StoredTask, TaskStatus } from '../../storage/ports.js';

/**
 * A stored task as each era's client reads it — pure, so both wire forms are pinned by unit
 * tests. One task, two vocabularies:
 * - 2025-11-25 (basic/utilities/tasks): `Task { taskId, status, statusMessage?, createdAt,
 *   lastUpdatedAt, ttl, pollInterval }`; `tools/call` answers `{ task }`; a tool result with
 *   `isError: true` makes the task `failed` (§Task Status), its result still fetched by
 *   `tasks/result`, which carries `_meta["io.modelcontextprotocol/related-task"]`.
 * - 2026-07-28 Tasks extension (SEP-2663): the same fields as `ttlMs`, `pollIntervalMs`;
 *   `tools/call` answers `{ resultType: "task", …Task }`; `tasks/get` answers a DetailedTask
 *   with `result` (completed: any tool result, `isError` ones included), `error` (failed: a
 *   JSON-RPC error) or `inputRequests` (input_required) inlined.
 * What is stored is era-neutral: `outcome` holds `{ result }`, `{ error }` or
 * `{ inputRequests }`, and the status is the extension's.
 */

/** A JSON-RPC error as a failed task keeps it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What a stored task's `outcome` holds, read defensively (it is JSON from the store). */
export type TaskOutcome =
  | { readonly result: CallToolResult }
  | { readonly error: TaskError }
  | { readonly inputRequests: Record<string, unknown> };

/** How the gateway presents its tasks: the poll interval it suggests. */
export interface TaskView {
  readonly pollIntervalMs: number;
}

/** The prefix of the gateway's task ids: random, so an id says nothing and cannot be guessed. */
export const TASK_ID_PREFIX = 'sbt-';
/** Longer ids are not the gateway's: refused before any lookup. */
export const MAX_TASK_ID_LENGTH = 64;

/** A fresh task id: 128 random bits. */
export function newTaskId(): string {
  return `${TASK_ID_PREFIX}${randomBytes(16).toString('base64url')}`;
}

/** Whether `id` could be one of the gateway's task ids (a cheap check before the store is asked). */
export function isTaskIdShaped(id: string): boolean {
  return id.startsWith(TASK_ID_PREFIX) && id.length <= MAX_TASK_ID_LENGTH;
}

/** The outcome of `task`, if it holds one of the known forms. */
export function outcomeOf(task: StoredTask): TaskOutcome | undefined {
  const outcome = task.outcome;
  if (typeof outcome !== 'object' || outcome === null) return undefined;
  const o = outcome as Record<string, unknown>;
  if (isRecord(o.result)) return { result: o.result as CallToolResult };
  if (isRecord(o.error) && typeof o.error.code === 'number' && typeof o.error.message === 'string') {
    return { error: o.error as unknown as TaskError };
  }
  if (isRecord(o.inputRequests)) return { inputRequests: o.inputRequests };
  return undefined;
}

/** The 2025-11-25 status: a completed call whose result is an error is `failed` in that era. */
function legacyStatus(task: StoredTask): { status: TaskStatus; statusMessage?: string } {
  const outcome = outcomeOf(task);
  if (task.status === 'completed' && outcome && 'result' in outcome && outcome.result.isError === true) {
    return {
      status: 'failed',
      statusMessage: task.statusMessage ?? firstText(outcome.result) ?? 'The tool failed.',
    };
  }
  return {
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
  };
}

/** The 2025-11-25 `Task` of `task`. */
export function legacyTask(task: StoredTask, view: TaskView): Record<string, unknown> {
  return {
    taskId: task.id,
    ...legacyStatus(task),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttl: ttlOf(task),
    pollInterval: view.pollIntervalMs,
  };
}

/** The extension's `Task` of `task`. */
export function modernTask(task: StoredTask, view: TaskView): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.updatedAt.toISOString(),
    ttlMs: ttlOf(task),
    pollIntervalMs: view.pollIntervalMs,
  };
}

/** The extension's DetailedTask: the Task with its status's payload inlined (§Task Status). */
export function detailedTask(task: StoredTask, view: TaskView): Record<string, unknown> {
  const outcome = outcomeOf(task);
  return {
    ...modernTask(task, view),
    ...(task.status === 'completed' && outcome && 'result' in outcome && { result: outcome.result }),
    ...(task.status === 'failed' && { error: failureOf(task) }),
    ...(task.status === 'input_required' &&
      outcome &&
      'inputRequests' in outcome && { inputRequests: outcome.inputRequests }),
  };
}

/** What `tools/call` answers when it created `task`, in the client's era. */
export function createTaskResult(
  task: StoredTask,
  era: 'legacy' | 'modern',
  view: TaskView,
): Record<string, unknown> {
  return era === 'legacy'
    ? { task: legacyTask(task, view) }
    : { resultType: 'task', ...modernTask(task, view) };
}

/**
 * What 2025-11-25 `tasks/result` answers for a finished task: what the call would have
 * returned (§Result Retrieval), marked as the task's — a result, or the JSON-RPC error to
 * throw. A cancelled task has neither.
 */
export function legacyPayload(
  task: StoredTask,
): { readonly result: CallToolResult } | { readonly error: TaskError } | { readonly cancelled: true } {
  if (task.status === 'cancelled') return { cancelled: true };
  const outcome = outcomeOf(task);
  if (task.status === 'completed' && outcome && 'result' in outcome) {
    const meta = { ...outcome.result._meta, [RELATED_TASK_META_KEY]: { taskId: task.id } };
    return { result: { ...outcome.result, _meta: meta } };
  }
  return { error: failureOf(task) };
}

/** The JSON-RPC error of a failed task (one that failed without saying why gets an internal error). */
export function failureOf(task: StoredTask): TaskError {
  const outcome = outcomeOf(task);
  if (outcome && 'error' in outcome) return outcome.error;
  return { code: -32603, message: task.statusMessage ?? 'The task failed without saying why.' };
}

/** Whether `status` is final. */
export function isFinished(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function ttlOf(task: StoredTask): number {
  return task.expiresAt.getTime() - task.createdAt.getTime();
}

function firstText(result: CallToolResult): string | undefined {
  const first = result.content?.find((c) => c.type === 'text');
  return first && first.type === 'text' ? first.text : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
