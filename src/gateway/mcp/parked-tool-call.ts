import {
  inputRequired,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RelayedRequest } from '../../client/relay.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { AskApproval } from '../../host/governance/governor.js';
import { type ParkedCall, ParkedCalls } from './parked-calls.js';
import { argumentsDigest, type RelayState } from './relay-state.js';
import { callUpstream, type RelayOptions, type ToolAnswer, withCallRelays } from './upstream-calls.js';

/**
 * The one case the upstream cannot speak for itself: a 2026-07-28 client calling a tool of a
 * 2025-era upstream, whose questions arrive as live requests the client cannot be sent. They
 * are parked (parked-calls.ts) and returned as `input_required` rounds; the retry carrying the
 * answers resumes the waiting call.
 */

/** A parked call's tool-call round, as the gateway's handler has it settled. */
export interface ParkingCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly ctx: ServerContext;
  readonly consent: { readonly askApproval?: AskApproval; readonly consented?: true };
  readonly relayed: RelayedRequest;
  readonly state: RelayState | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

// Per process, so per gateway instance: see parked-calls.ts on routing rounds back to it.
const parkedCalls = new ParkedCalls();

/**
 * A 2026-07-28 client's call to a tool of a 2025-era upstream: the upstream's elicitation,
 * sampling and roots requests (those the client declared it can answer) are parked and
 * returned as `input_required` rounds; the retry that carries the answers (and the park id in
 * the sealed state) resumes the parked call. A client that can answer none is called as before.
 */
export async function parkToolCall(
  options: RelayOptions,
  server: Server,
  entry: CatalogTool,
  call: ParkingCall,
): Promise<ToolAnswer> {
  const { ctx, state } = call;
  const principal = options.principal.id;
  if (state?.p !== undefined) {
    const parked = parkedCalls.take(state.p, principal);
    if (parked === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'The parked call this requestState continues is gone (no answer came within 5 minutes, or another gateway instance or an earlier run of this one parked it); start the call again without requestState.',
      );
    }
    try {
      parked.answer(ctx.mcpReq.inputResponses);
    } catch (error) {
      parkedCalls.admit(parked, principal);
      throw error;
    }
    return parkedRound(options, parked, call);
  }
  const capabilities = call.relayed.clientCapabilities;
  const parked = parkedCalls.open();
  const caller = parked.caller({
    elicit: capabilities.elicitation !== undefined,
    sample: capabilities.sampling !== undefined,
    roots: capabilities.roots !== undefined,
  });
  if (caller === undefined) {
    return callUpstream(options, server, entry, { ...call, askApproval: call.consent.askApproval });
  }
  const askApproval = call.consent.askApproval;
  parked.start((signal) =>
    withCallRelays(
      options,
      entry,
      { ctx: () => parked.context ?? ctx, logLevel: call.logLevel, signal },
      async (callOptions) => {
        const result = await options.host.callTool(entry.name, call.args, {
          ...callOptions,
          ...(askApproval && { askApproval }),
          caller,
        });
        return result.raw;
      },
    ),
  );
  return parkedRound(options, parked, call);
}

/** Serves one round of a parked call: its result, or the requests it now waits on. */
async function parkedRound(
  options: RelayOptions,
  parked: ParkedCall,
  call: ParkingCall,
): Promise<ToolAnswer> {
  const { ctx } = call;
  parked.context = ctx;
  // While a round is served, the client's cancellation of it cancels the call.
  const cancelled = () => parked.cancel('The client cancelled the call.');
  ctx.mcpReq.signal.addEventListener('abort', cancelled, { once: true });
  try {
    const round = await parked.next();
    if ('done' in round) return round.done;
    const requestState = await options.relayState.mint(
      {
        n: call.name,
        h: argumentsDigest(call.args),
        p: parked.id,
        // The parked call lives in this process: its next round must come back here.
        ...(options.replica && { r: options.replica.id }),
        ...((call.consent.consented || call.state?.c) && { c: true }),
      },
      ctx,
    );
    parkedCalls.admit(parked, options.principal.id);
    return inputRequired({ inputRequests: round.asks, requestState });
  } catch (error) {
    parked.cancel("The gateway could not serve the call's next round.");
    throw error;
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', cancelled);
  }
}
