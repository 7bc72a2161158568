import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type CreateMessageResult,
  type InputRequests,
  type InputRequiredResult,
  inputRequired,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { LogEntry } from '../../client/connection-types.js';
import type { RelayAnswer, RelayedRequest } from '../../client/relay.js';
import type { ElicitationParams, SamplingParams } from '../../client/server-requests.js';
import { describeError, isSwitchboardError } from '../../core/errors.js';
import { isModelVisible } from '../../core/mcp-apps.js';
import type { Caller } from '../../host/caller-relay.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { AskApproval } from '../../host/governance/governor.js';
import type { HostCallOptions } from '../../host/host.js';
import type { TaskLedger } from '../tasks/task-ledger.js';
import { CONSENT_KEY } from './consent-gate.js';
import type { GatewayServerOptions } from './gateway-server.js';
import { asLoggingLevel, atLeast } from './log-levels.js';
import type { OpenedViews } from './opened-views.js';
import { argumentsDigest, type RelayState } from './relay-state.js';
import { recordRelayedTask } from './relayed-tasks.js';
import { TaskAnswer } from './task-routes.js';

/**
 * One call from a gateway client to an upstream server, and what crosses the hop with it:
 * a 2025 session's client answers the upstream's elicitation and sampling live; a 2026-07-28
 * client talking to a 2026-07-28 upstream gets the upstream's `input_required` rounds and
 * tasks relayed (its per-round state sealed in `requestState`), and a 2025-era upstream's
 * questions parked for it (parked-tool-call.ts); progress, log lines and cancellation cross in
 * both eras; errors keep their JSON-RPC codes.
 */

/** What a gateway `tools/call` answers: a result, or the next round's input requests. */
export type ToolAnswer = CallToolResult | InputRequiredResult;

/** The gateway options with the state codec and the task ledger settled. */
export type RelayOptions = GatewayServerOptions & {
  readonly relayState: RequestStateCodec<RelayState>;
  readonly tasks: TaskLedger;
  readonly openedViews: OpenedViews;
};

/**
 * The calling client as the answerer of the upstream's elicitation, sampling and roots requests
 * during the call, on a 2025-era connection (the request goes to the client related to the
 * call). A 2026-07-28 client cannot be asked mid-call: its call to a 2025-era upstream parks
 * those requests instead (`parkToolCall`).
 */
export function callerOf(server: Server, ctx: ServerContext): Caller | undefined {
  if (ctx.mcpReq.envelope !== undefined) return undefined;
  const capabilities = server.getClientCapabilities();
  const elicit = capabilities?.elicitation !== undefined;
  const sample = capabilities?.sampling !== undefined;
  const roots = capabilities?.roots !== undefined;
  if (!elicit && !sample && !roots) return undefined;
  return {
    ...(elicit && { elicit: (params: ElicitationParams) => ctx.mcpReq.elicitInput(params) }),
    ...(sample && {
      sample: async (params: SamplingParams) =>
        (await ctx.mcpReq.requestSampling(params)) as CreateMessageResult,
    }),
    ...(roots && {
      roots: async (signal: AbortSignal) =>
        (await ctx.mcpReq.send({ method: 'roots/list' }, { signal })).roots,
    }),
  };
}

/**
 * The state of this round of a multi-round 2026-07-28 call (verified by the SDK through the
 * codec before the handler runs), checked to belong to this very call, and to this replica
 * (`replica`, its id) when it names one.
 */
export function roundState(
  ctx: ServerContext,
  name: string,
  args: Record<string, unknown>,
  replica?: string,
): RelayState | undefined {
  const state = ctx.mcpReq.requestState<RelayState>();
  if (state === undefined) return undefined;
  if (state.n !== name || state.h !== argumentsDigest(args)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'The requestState belongs to another call (its name or arguments differ); send the call again without it.',
    );
  }
  // The replicas relay such a round to the one it names (placed-rounds.ts); one that reaches
  // another anyway (that replica is gone) cannot be served.
  if (state.r !== undefined && state.r !== replica) throw roundElsewhere();
  return state;
}

/** The refusal of a round only another replica could serve, which is gone. */
export function roundElsewhere(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'This requestState continues a call that only the gateway replica which started it can serve (it ' +
      'runs that call, or the stdio server behind it), and that replica is gone. Send the call again ' +
      'without requestState, to start it over.',
  );
}

/** `{ r }` for the state of a round of `server` that only this replica can serve (see `RelayState.r`). */
export function pinnedHere(options: GatewayServerOptions, server: string): { r?: string } {
  return options.replica?.pins(server) ? { r: options.replica.id } : {};
}

/** What of a 2026-07-28 request crosses to the upstream; `undefined` for a 2025 session. */
export function relayedParts(ctx: ServerContext): RelayedRequest | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope === undefined) return undefined;
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  const { [CONSENT_KEY]: _ours, ...theirs } = ctx.mcpReq.inputResponses ?? {};
  return {
    clientCapabilities:
      typeof capabilities === 'object' && capabilities !== null
        ? (capabilities as Record<string, unknown>)
        : {},
    ...(Object.keys(theirs).length > 0 && { inputResponses: theirs }),
  };
}

/** The upstream wants more input: its requests go to the client, with the state of the next round sealed. */
export async function nextRound(
  options: RelayOptions,
  ctx: ServerContext,
  raw: Record<string, unknown>,
  state: RelayState,
): Promise<InputRequiredResult> {
  const upstreamState = typeof raw.requestState === 'string' ? raw.requestState : undefined;
  const requestState = await options.relayState.mint(
    { ...state, ...(upstreamState !== undefined && { u: upstreamState }) },
    ctx,
  );
  return inputRequired({ inputRequests: (raw.inputRequests ?? {}) as InputRequests, requestState });
}

/** A 2026-07-28 client's call to a 2026-07-28 upstream: its rounds and tasks are the client's. */
export function relayToolCall(
  options: RelayOptions,
  entry: CatalogTool,
  call: {
    readonly name: string;
    readonly args: Record<string, unknown>;
    readonly ctx: ServerContext;
    readonly consent: { readonly askApproval?: AskApproval; readonly consented?: true };
    readonly relayed: RelayedRequest;
    readonly state: RelayState | undefined;
    readonly logLevel: LoggingLevel | undefined;
  },
): Promise<ToolAnswer> {
  const { ctx, state } = call;
  const relayed = { ...call.relayed, ...(state?.u !== undefined && { requestState: state.u }) };
  return withCallRelays(options, entry, { ctx: () => ctx, logLevel: call.logLevel }, async (callOptions) => {
    const answer = await options.host.relayToolCall(entry.name, call.args, relayed, {
      ...callOptions,
      ...(call.consent.askApproval && { askApproval: call.consent.askApproval }),
    });
    return relayedAnswer(options, entry, { ...call, answer });
  });
}

/**
 * What the client is answered for a relayed upstream answer: the result as it is, a task under
 * a gateway task id recorded with its principal (relayed-tasks.ts; thrown, see
 * {@link TaskAnswer}), or the next round with its state sealed.
 */
export function relayedAnswer(
  options: RelayOptions,
  entry: CatalogTool,
  call: {
    readonly name: string;
    readonly args: Record<string, unknown>;
    readonly ctx: ServerContext;
    readonly consent: { readonly consented?: true };
    readonly answer: RelayAnswer;
  },
): Promise<ToolAnswer> | CallToolResult {
  const { answer } = call;
  if (answer.kind === 'task') {
    const owner = { principal: options.principal.id, server: entry.server, tool: call.name };
    return recordRelayedTask(options.tasks, owner, answer.raw).then((created) => {
      throw new TaskAnswer(created);
    });
  }
  if (answer.kind === 'complete') return answer.raw as CallToolResult;
  return nextRound(options, call.ctx, answer.raw, {
    n: call.name,
    h: argumentsDigest(call.args),
    ...pinnedHere(options, entry.server),
    ...(call.consent.consented && { c: true }),
  });
}

export function callUpstream(
  options: GatewayServerOptions,
  server: Server,
  entry: CatalogTool,
  call: {
    readonly args: Record<string, unknown>;
    readonly ctx: ServerContext;
    readonly askApproval: AskApproval | undefined;
    readonly logLevel: LoggingLevel | undefined;
  },
): Promise<CallToolResult> {
  const { args, ctx, askApproval } = call;
  const caller = callerOf(server, ctx);
  return withCallRelays(options, entry, { ctx: () => ctx, logLevel: call.logLevel }, async (callOptions) => {
    const result = await options.host.callTool(entry.name, args, {
      ...callOptions,
      ...(askApproval && { askApproval }),
      ...(caller && { caller }),
    });
    return result.raw;
  });
}

/** Where an upstream call's progress and log lines go, and what cancels it. */
interface CallRelays {
  /** The client request being served (a parked call serves several, one round after another). */
  readonly ctx: () => ServerContext;
  readonly logLevel: LoggingLevel | undefined;
  /** Cancels the call; default: the client request's own signal. */
  readonly signal?: AbortSignal;
}

/**
 * Runs one upstream call with what crosses the hop while it runs: the client's cancellation,
 * the server's progress (under the client's token) and its log lines. Policy and approval
 * outcomes come back as tool errors the model should read; the rest as JSON-RPC errors.
 */
export async function withCallRelays<T extends ToolAnswer>(
  options: GatewayServerOptions,
  entry: CatalogTool,
  relays: CallRelays,
  run: (callOptions: HostCallOptions) => Promise<T>,
): Promise<T | CallToolResult> {
  const { logLevel } = relays;
  const ctx = relays.ctx();
  const progressToken = ctx.mcpReq._meta?.progressToken;
  // The server's log notifications while the call runs reach the calling client (a server
  // with several calls at once cannot say which call a line belongs to: each caller sees all).
  const relayLog = (line: LogEntry) => {
    if (line.server !== entry.server || line.source !== 'server') return;
    if (logLevel === undefined || !atLeast(line.level, logLevel)) return;
    void relays
      .ctx()
      .mcpReq.notify({
        method: 'notifications/message',
        params: {
          level: line.level as LoggingLevel,
          data: line.text,
          ...(line.logger && { logger: line.logger }),
        },
      })
      .catch(() => undefined);
  };
  options.host.on('log', relayLog);
  try {
    return await run({
      session: options.principal.id,
      signal: relays.signal ?? ctx.mcpReq.signal,
      // Only a view reaches an app-only tool here (app-routes.ts): the host audits it as the app's.
      ...(!isModelVisible(entry.tool) && { app: { server: entry.server } }),
      ...(progressToken !== undefined && {
        onProgress: (progress) => {
          // Under the token of the request being served now (a later round has its own, or none).
          const now = relays.ctx().mcpReq;
          const token = now._meta?.progressToken;
          if (token === undefined) return;
          void now
            .notify({ method: 'notifications/progress', params: { progressToken: token, ...progress } })
            .catch(() => undefined);
        },
      }),
    });
  } catch (error) {
    if (error instanceof TaskAnswer) throw error;
    if (isSwitchboardError(error, 'POLICY_DENIED') || isSwitchboardError(error, 'APPROVAL_DECLINED')) {
      return errorResult(error.message);
    }
    throw toProtocolError(error);
  } finally {
    options.host.off('log', relayLog);
  }
}

export async function forwarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toProtocolError(error);
  }
}

/**
 * The JSON-RPC code of `UPSTREAM_RECONNECTING` (in the range JSON-RPC leaves to servers, none
 * of MCP's): a server is reconnecting or starting, so the request can be retried in a moment.
 * `data` says the same in words a client may branch on: `{ code, server, retryable: true }`.
 */
export const RECONNECTING_RPC_CODE = -32010;

/**
 * An upstream's JSON-RPC error keeps its code across the hop; a server reconnecting gets its
 * own retryable code; our other errors become internal errors with their message.
 */
export function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (isSwitchboardError(error, 'UPSTREAM_RECONNECTING')) {
    return new ProtocolError(RECONNECTING_RPC_CODE, error.message, {
      code: error.code,
      server: error.details.server,
      retryable: true,
    });
  }
  if (isSwitchboardError(error)) {
    const rpc = error.details.rpcCode;
    // The upstream's error data (a not-found resource's `uri`, SEP-2164) crosses the hop too.
    const data = error.details.rpcData ?? { code: error.code };
    return new ProtocolError(
      typeof rpc === 'number' ? rpc : ProtocolErrorCode.InternalError,
      error.message,
      data,
    );
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, describeError(error));
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The least severe log line the calling client wants relayed: a 2026-07-28 request names it
 * in its `_meta` (none named, none sent); a 2025 session sets it with `logging/setLevel`
 * (until then, every line).
 */
export function logThreshold(
  ctx: ServerContext,
  sessionLevel: LoggingLevel | undefined,
): LoggingLevel | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope !== undefined) return asLoggingLevel(envelope[LOG_LEVEL_META_KEY]);
  return sessionLevel ?? 'debug';
}
