import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { RelayedRequest } from '../../client/relay.js';
import { TASKS_EXTENSION_ID } from '../../client/task-runner.js';
import { isSwitchboardError } from '../../core/errors.js';
import type { Host } from '../../host/host.js';
import type { StoredTask, TaskChange } from '../../storage/ports.js';
import { taskStatusOf } from '../../storage/task-repository.js';
import type { TaskLedger } from '../tasks/task-ledger.js';
import { newTaskId } from '../tasks/task-shapes.js';

/**
 * Tasks a 2026-07-28 upstream keeps, relayed to a 2026-07-28 client (Tasks extension): the
 * upstream's CreateTaskResult reaches the client under a gateway task id, recorded with its
 * principal, server and upstream id, so a poll is routed back to the server by the store, not
 * by anything the client could forge. Each poll through the gateway notes the upstream's
 * status; a finished one is kept with its result or error, so once an upstream forgets a task
 * (it restarted, or dropped it), the gateway still answers what it last knew, and a task the
 * upstream no longer knows before it finished is failed with that reason, not left working.
 */

/** Records the upstream's new task and returns the CreateTaskResult the client gets. */
export async function recordRelayedTask(
  ledger: TaskLedger,
  owner: { readonly principal: string; readonly server: string; readonly tool: string },
  raw: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const upstreamId = raw.taskId;
  if (typeof upstreamId !== 'string' || upstreamId.length === 0) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Server "${owner.server}" answered with a task but no taskId; the gateway cannot relay it. The server does not follow the Tasks extension.`,
    );
  }
  const ttl = typeof raw.ttlMs === 'number' ? raw.ttlMs : ledger.settings.maxTtlMs;
  const task = await ledger.create({
    id: newTaskId(),
    principal: owner.principal,
    server: owner.server,
    tool: owner.tool,
    kind: 'relayed',
    upstreamId,
    status: taskStatusOf(raw.status) ?? 'working',
    ...(typeof raw.statusMessage === 'string' && { statusMessage: raw.statusMessage }),
    ttlMs: ledger.ttlFor(ttl),
  });
  return { ...raw, taskId: task.id };
}

/**
 * The relayed task as its upstream has it now: its DetailedTask under the gateway's id
 * (`upstream`), and the stored task with what changed noted. An upstream that no longer knows
 * the task (-32602) fails it.
 */
export async function refreshRelayedTask(
  host: Host,
  ledger: TaskLedger,
  task: StoredTask,
  relayed: RelayedRequest | undefined,
  signal: AbortSignal,
): Promise<{ readonly task: StoredTask; readonly upstream?: Record<string, unknown> }> {
  let upstream: Record<string, unknown>;
  try {
    upstream = await relayTaskRequest(host, task, 'tasks/get', {}, relayed, signal);
  } catch (error) {
    if (!forgotten(error)) throw error;
    const reason = `Server "${task.server}" no longer knows this task (it restarted or dropped it) and never said it finished; call the tool again.`;
    await ledger.write(task.id, {
      status: 'failed',
      statusMessage: reason,
      outcome: { error: { code: -32603, message: reason, data: { code: 'TASK_LOST_UPSTREAM' } } },
    });
    return { task: (await ledger.read(task.id, task.principal)) ?? task };
  }
  const change = changeOf(upstream);
  if (change && (change.status !== task.status || change.statusMessage !== (task.statusMessage ?? null))) {
    await ledger.write(task.id, change);
    return { task: (await ledger.read(task.id, task.principal)) ?? task, upstream };
  }
  return { task, upstream };
}

/** Sends `method` for the relayed `task` to its upstream under the upstream's id; the answer under the gateway's. */
export async function relayTaskRequest(
  host: Host,
  task: StoredTask,
  method: string,
  extra: Record<string, unknown>,
  relayed: RelayedRequest | undefined,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  // A 2025 session has no per-request capabilities: the extension is declared for it.
  const parts = relayed ?? { clientCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } };
  const answer = await host.relayRequest(task.server, method, { taskId: task.upstreamId, ...extra }, parts, {
    signal,
  });
  const raw = answer.raw;
  return typeof raw.taskId === 'string' ? { ...raw, taskId: task.id } : raw;
}

/** What an upstream's DetailedTask says of the task's state, to note; undefined when it says nothing we know. */
function changeOf(
  upstream: Record<string, unknown>,
): (TaskChange & { statusMessage: string | null }) | undefined {
  const status = taskStatusOf(upstream.status);
  if (status === undefined) return undefined;
  const statusMessage = typeof upstream.statusMessage === 'string' ? upstream.statusMessage : null;
  const outcome =
    status === 'completed' && isRecord(upstream.result)
      ? { result: upstream.result }
      : status === 'failed' && isRecord(upstream.error)
        ? { error: upstream.error }
        : status === 'input_required' && isRecord(upstream.inputRequests)
          ? { inputRequests: upstream.inputRequests }
          : null;
  return { status, statusMessage, outcome };
}

/** The upstream answered -32602 to a task it should know: it forgot the task. */
function forgotten(error: unknown): boolean {
  if (error instanceof ProtocolError) return error.code === ProtocolErrorCode.InvalidParams;
  return isSwitchboardError(error) && error.details.rpcCode === ProtocolErrorCode.InvalidParams;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
