import {
  type CallToolResult,
  type CreateMessageResult,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { RelayedRequest } from '../../client/relay.js';
import type { ElicitationParams, SamplingParams } from '../../client/server-requests.js';
import type { Caller } from '../../host/caller-relay.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { AskApproval } from '../../host/governance/governor.js';
import { declaresTasks, offeredTaskSupport, taskAfterMs, upstreamRunsAsTask } from '../tasks/task-policy.js';
import { runAsTask, type TaskAsker } from '../tasks/task-run.js';
import { createTaskResult } from '../tasks/task-shapes.js';
import { TaskAnswer } from './task-routes.js';
import { type RelayOptions, withCallRelays } from './upstream-calls.js';

/**
 * The gateway's own tasks on `tools/call`: which calls it answers with a task it runs itself,
 * whatever the upstream's era, so a task reaches every client that can take one.
 * - A 2025 session's call carrying `task` (2025-11-25, §Creating Tasks) becomes a task at
 *   once, for any tool offered with `taskSupport` (task-policy.ts); the upstream runs it as its
 *   own task where it can (2025-11-25 task or Tasks extension), and the gateway follows it.
 * - A 2026-07-28 client declaring the Tasks extension gets a task at once for a tool its
 *   2025-11-25 upstream runs as a task, and, under the operator's `taskAfter`, for any call
 *   still running after so many seconds (answered inline when it ends sooner). Its
 *   2026-07-28 upstream's own tasks are relayed instead (upstream-calls.ts).
 * Everything else is called as before.
 */

/** The parts of a `tools/call` the decision needs. */
export interface TaskCallInput {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly ctx: ServerContext;
  /** `params.task` of a 2025-11-25 call (`{ ttl? }`), if it carried one. */
  readonly task: { readonly ttl?: number | null } | undefined;
  readonly relayed: RelayedRequest | undefined;
  /** A later round of a multi-round call is never started as a task. */
  readonly round: boolean;
  readonly askApproval: AskApproval | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * The call as a gateway task, or undefined when it is not one. Throws a {@link TaskAnswer}
 * carrying the CreateTaskResult when a task was created; returns the call's own result when a
 * `taskAfter` call ended in time.
 */
export async function callAsTask(
  options: RelayOptions,
  server: Server,
  entry: CatalogTool,
  call: TaskCallInput,
): Promise<CallToolResult | undefined> {
  const { host, tasks: ledger } = options;
  if (call.relayed) {
    if (call.round || !declaresTasks(call.relayed.clientCapabilities)) return undefined;
    const policy = taskAfterMs(host, entry);
    const at = upstreamRunsAsTask(host, entry) ? 0 : policy;
    if (at === undefined || !ledger.hasRoom()) return undefined;
    const can = call.relayed.clientCapabilities;
    const asker: TaskAsker = {
      kind: 'parked',
      can: {
        elicit: can.elicitation !== undefined,
        sample: can.sampling !== undefined,
        roots: can.roots !== undefined,
      },
    };
    const start = await runAsTask(spec(options, entry, call, asker, ledger.settings.ttlMs), {
      afterMs: at,
      signal: call.ctx.mcpReq.signal,
    });
    if ('result' in start) return start.result;
    throw new TaskAnswer(createTaskResult(start.task, 'modern', ledger.view));
  }
  if (call.task === undefined) return undefined;
  if (offeredTaskSupport(host, entry) === 'forbidden') {
    // 2025-11-25 §Tool-Level Negotiation: a task for a tool that does not offer one is -32601.
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool ${call.name} cannot run as a task here (its server runs it only inline); call it without "task".`,
    );
  }
  // Full: the call is processed normally, as a receiver without task support would (§Behavior Requirements).
  if (!ledger.hasRoom()) return undefined;
  const asker: TaskAsker = { kind: 'live', caller: (marks) => sessionCaller(server, marks) };
  const start = await runAsTask(spec(options, entry, call, asker, ledger.ttlFor(call.task.ttl)), {
    afterMs: 0,
    signal: call.ctx.mcpReq.signal,
  });
  if ('result' in start) return start.result;
  throw new TaskAnswer(createTaskResult(start.task, 'legacy', ledger.view));
}

/** The task run of `call`: the governed upstream call, as a task where the upstream can run one. */
function spec(
  options: RelayOptions,
  entry: CatalogTool,
  call: TaskCallInput,
  asker: TaskAsker,
  ttlMs: number,
) {
  return {
    ledger: options.tasks,
    principal: options.principal.id,
    server: entry.server,
    tool: call.name,
    ttlMs,
    asker,
    run: (signal: AbortSignal, caller: Caller | undefined) =>
      withCallRelays(
        options,
        entry,
        { ctx: () => call.ctx, logLevel: call.logLevel, signal },
        async (callOptions) => {
          const result = await options.host.callTool(entry.name, call.args, {
            ...callOptions,
            // The upstream's own task where it offers one: the gateway then follows it.
            task: true,
            ...(call.askApproval && { askApproval: call.askApproval }),
            ...(caller && { caller }),
          });
          return result.raw;
        },
      ),
  };
}

/**
 * A 2025 session's client as the answerer of a task's questions: asked on its session (the
 * call that created the task was answered long ago), marked with the task (2025-11-25,
 * §Associating Task-Related Messages), the task `input_required` meanwhile.
 */
function sessionCaller(
  server: Server,
  marks: { readonly taskId: string; asking(): void; answered(): void },
): Caller | undefined {
  const capabilities = server.getClientCapabilities();
  const meta = { [RELATED_TASK_META_KEY]: { taskId: marks.taskId } };
  const asked = async <T>(ask: () => Promise<T>): Promise<T> => {
    marks.asking();
    try {
      return await ask();
    } finally {
      marks.answered();
    }
  };
  const caller: Caller = {
    ...(capabilities?.elicitation !== undefined && {
      elicit: (params: ElicitationParams, signal: AbortSignal) =>
        asked(() =>
          server.elicitInput({ ...params, _meta: { ...params._meta, ...meta } } as never, { signal }),
        ),
    }),
    ...(capabilities?.sampling !== undefined && {
      sample: (params: SamplingParams, signal: AbortSignal) =>
        asked(
          async () =>
            (await server.createMessage({ ...params, _meta: { ...params._meta, ...meta } } as never, {
              signal,
            })) as CreateMessageResult,
        ),
    }),
    ...(capabilities?.roots !== undefined && {
      roots: (signal: AbortSignal) =>
        asked(async () => (await server.listRoots({ _meta: meta }, { signal })).roots),
    }),
  };
  return Object.keys(caller).length > 0 ? caller : undefined;
}

/**
 * The tools as a 2025 session lists them: each with the `execution.taskSupport` the gateway
 * offers for it (task-policy.ts), in place of its upstream's, so a client's task-augmented
 * calls are the ones the gateway takes.
 */
export function withOfferedTaskSupport(
  options: Pick<RelayOptions, 'host'>,
  listed: Tool[],
  served: ReadonlyMap<string, CatalogTool>,
): Tool[] {
  return listed.map((tool) => {
    const entry = served.get(tool.name);
    const support = entry ? offeredTaskSupport(options.host, entry) : 'forbidden';
    const { execution, ...rest } = tool as Tool & { execution?: Record<string, unknown> };
    const others = { ...execution };
    delete others.taskSupport;
    const kept = Object.keys(others).length > 0 ? others : undefined;
    if (support === 'forbidden') return (kept ? { ...rest, execution: kept } : rest) as Tool;
    return { ...rest, execution: { ...kept, taskSupport: support } } as Tool;
  });
}
