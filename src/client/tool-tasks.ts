import type { JSONRPCMessage, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import type { CallOptions, ToolCallOptions } from './connection-types.js';
import { clientCapabilities } from './sdk-client.js';
import type { ServerRequestHandlers } from './server-requests.js';
import { runToolAsTask, serverSupportsToolTasks, type TaskEra, toolTaskSupport } from './task-runner.js';

/**
 * Tool calls as tasks: the glue between the Connection and the task runner. SDK v2 rejects a 2026-07-28 `tools/call`
 * answer with `resultType: "task"` (the Tasks extension's CreateTaskResult) and loses the task
 * id; the connection's transport tap sees every message before the SDK does, so it parks such
 * a result under `_meta` of a plain complete result, in place, and `untunnelTaskResult`
 * restores it for the runner.
 */
const TASK_TUNNEL_KEY = 'dev.switchboard/create-task-result';

export function tunnelTaskResult(message: JSONRPCMessage): void {
  const m = message as { result?: Record<string, unknown> };
  if (m.result?.resultType !== 'task') return;
  m.result = { resultType: 'complete', content: [], _meta: { [TASK_TUNNEL_KEY]: m.result } };
}

export function untunnelTaskResult(raw: unknown): Record<string, unknown> {
  const result = (raw ?? {}) as Record<string, unknown>;
  const meta = result._meta as Record<string, unknown> | undefined;
  const parked = meta?.[TASK_TUNNEL_KEY];
  return typeof parked === 'object' && parked !== null ? (parked as Record<string, unknown>) : result;
}

/**
 * Whether a call runs as a task: the server must support task-augmented calls; in the
 * 2025-11-25 era the tool decides too (`required` always, `optional` when asked, or, when the
 * caller said nothing, when `optionalAsTask`: the entry's `optionalTasks`, "task" by default,
 * since a server marks a tool so because it may run long); the 2026-07-28 extension lets the
 * server decide once the client opts in. `wanted`: true asked for, false refused, undefined
 * not said.
 */
export function shouldRunAsTask(
  era: TaskEra | undefined,
  capabilities: ServerCapabilities | undefined,
  tool: Tool | undefined,
  wanted: boolean | undefined,
  optionalAsTask = false,
): boolean {
  const asked = wanted === true;
  if (!asked && (era === 'modern' || tool?.execution === undefined)) return false;
  if (!era || !serverSupportsToolTasks(capabilities, era)) return false;
  if (era === 'modern') return asked;
  const support = tool ? toolTaskSupport(tool) : 'forbidden';
  return (
    support === 'required' || (support === 'optional' && (asked || (wanted === undefined && optionalAsTask)))
  );
}

/** What running a call as a task needs from the connection. */
export interface TaskCallDeps {
  readonly era: TaskEra;
  readonly requestTimeoutMs: number;
  readonly handlers: ServerRequestHandlers;
  /** The connection declares MCP Apps (ConnectionOptions.apps). */
  readonly apps?: boolean;
  /** Sends one request on the connection (with its deadline, signal and typed errors). */
  readonly send: (
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ) => Promise<Record<string, unknown>>;
  /** Answers a task's `inputRequests` through the connection's handlers. */
  readonly answer: (requests: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown>>;
}

/** Runs one tool call as a task over the connection (task-runner.ts does the protocol). */
export function runCallAsTask(
  name: string,
  args: Record<string, unknown>,
  options: ToolCallOptions,
  deps: TaskCallDeps,
): Promise<Record<string, unknown>> {
  const ttlMs = typeof options.task === 'object' ? options.task.ttlMs : undefined;
  return runToolAsTask(
    {
      request: (method, params, rpc) =>
        deps.send(method, params, {
          ...(rpc.signal && { signal: rpc.signal }),
          timeoutMs: rpc.timeoutMs ?? deps.requestTimeoutMs,
        }),
    },
    {
      era: deps.era,
      toolName: name,
      arguments: args,
      ...(ttlMs !== undefined && { ttlMs }),
      ...(options.signal && { signal: options.signal }),
      ...(options.onTaskStatus && { onStatus: options.onTaskStatus }),
      clientCapabilities: { ...clientCapabilities(deps.handlers, { apps: deps.apps === true }) },
      onInputRequests: (requests) => deps.answer(requests),
    },
  );
}
