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
import { clientTaskId, upstreamTaskId } from './relay-state.js';

/**
 * Tasks (the 2026-07-28 Tasks extension, `io.modelcontextprotocol/tasks`) across the hop: a
 * relayed `tools/call` whose server created a task answers the client with that task under a
 * gateway task id naming the server (relay-state.ts), and the client's `tasks/get`,
 * `tasks/update` and `tasks/cancel` are routed back to that server by it. The server keeps the
 * task; the gateway keeps nothing, so any instance can route any round.
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Carries a CreateTaskResult out of a `tools/call` handler. SDK v2 has no task vocabulary on the
 * server side and validates a `tools/call` answer as a CallToolResult, which a CreateTaskResult
 * (`resultType: "task"`) is not; the gateway's server returns it from outside that seam.
 */
export class TaskAnswer extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('task created');
  }
}

/** An SDK `Server` whose `tools/call` may answer with a task (see {@link TaskAnswer}). */
export class TaskAwareServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
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

/** The client's view of an upstream task answer: its task id rewritten to the gateway's. */
export function taskForClient(server: string, raw: Record<string, unknown>): Record<string, unknown> {
  const id = raw.taskId;
  return typeof id === 'string' ? { ...raw, taskId: clientTaskId(server, id) } : raw;
}

export interface TaskRouteDeps {
  readonly host: Host;
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

/** Registers `tasks/get`, `tasks/update` and `tasks/cancel`, each routed by its task id. */
export function registerTaskRoutes(server: Server, deps: TaskRouteDeps): void {
  const route = async (
    method: string,
    taskId: string,
    ctx: ServerContext,
    extra: Record<string, unknown> = {},
  ): Promise<Result> => {
    const relayed = deps.relayed(ctx);
    if (!relayed)
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        'Tasks need protocol 2026-07-28: connect with that revision and declare the io.modelcontextprotocol/tasks extension.',
      );
    // The extension's methods exist only for a request that declares it (-32021 otherwise).
    const extensions = relayed.clientCapabilities.extensions as Record<string, unknown> | undefined;
    if (extensions?.[TASKS_EXTENSION] === undefined) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    const target = upstreamTaskId(taskId);
    if (!target || !deps.allows(target.server)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown task ${JSON.stringify(taskId)}: it was not created through this gateway.`,
      );
    }
    try {
      const answer = await deps.host.relayRequest(
        target.server,
        method,
        { taskId: target.taskId, ...extra },
        relayed,
        { signal: ctx.mcpReq.signal },
      );
      return taskForClient(target.server, answer.raw) as Result;
    } catch (error) {
      return deps.fail(error);
    }
  };
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, (params, ctx) =>
    route('tasks/get', params.taskId, ctx),
  );
  server.setRequestHandler('tasks/update', { params: TaskUpdateParams }, (params, ctx) => {
    // The SDK lifts `inputResponses` of any request into the context; the params are the fallback.
    const inputResponses = ctx.mcpReq.inputResponses ?? params.inputResponses ?? {};
    return route('tasks/update', params.taskId, ctx, { inputResponses });
  });
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, (params, ctx) =>
    route('tasks/cancel', params.taskId, ctx),
  );
}
