/**
 * The next round of a multi-round 2026-07-28 call that only one replica can serve
 * (docs/replicas.md): its `requestState` names that replica (`RelayState.r`: it holds the
 * parked call, or runs the stdio server whose own state the round carries). Any other replica
 * relays the round there, unchanged, with the forwarding proof; when that replica is gone the
 * round is refused with what to do (start the call again), since nobody else can continue it.
 */
import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { jsonRpcError } from './json-rpc-error.js';
import { replicaLost } from './placed-sessions.js';
import type { RelayState } from './relay-state.js';
import type { GatewayPrincipal } from './served-catalog.js';
import type { SessionPlacement } from './session-placement.js';
import { roundElsewhere } from './upstream-calls.js';

/**
 * The answer of the replica that must serve this round, or undefined when this one serves it
 * (no state, a state naming this replica or none, or one that does not verify: the SDK
 * refuses that as usual).
 */
export async function serveRoundElsewhere(options: {
  readonly placement: SessionPlacement;
  readonly codec: RequestStateCodec<RelayState>;
  readonly principal: GatewayPrincipal;
  readonly body: unknown;
  readonly request: () => Request;
  readonly signal: AbortSignal;
  /** Whether another replica relayed this request here (it is never relayed again). */
  readonly relayed: boolean;
}): Promise<Response | undefined> {
  const { placement, body } = options;
  const round = roundOf(body);
  if (round === undefined || options.relayed) return undefined;
  let state: RelayState;
  try {
    // Verified as the SDK will (the same codec, bound to the method and the caller): a state
    // it would refuse is not routed anywhere.
    state = await options.codec.verify(round.state, {
      mcpReq: { method: round.method },
      http: { authInfo: { clientId: options.principal.id } },
    } as unknown as ServerContext);
  } catch {
    return undefined;
  }
  if (state.r === undefined || state.r === placement.self) return undefined;
  const url = placement.urlOf(state.r);
  if (url !== undefined) {
    const answer = await placement.forward(url, options.request(), JSON.stringify(body), options.signal);
    if (answer instanceof Response) return answer;
    // It may have acted on the round: never served twice. A retry finds it gone, or back.
    if (answer === 'lost') return replicaLost(body);
  }
  const refusal = roundElsewhere();
  return round.id === undefined
    ? jsonRpcError(400, refusal.code, refusal.message)
    : Response.json({
        jsonrpc: '2.0',
        id: round.id,
        error: { code: refusal.code, message: refusal.message },
      });
}

/** The method, id and `requestState` of a request carrying one. */
function roundOf(
  body: unknown,
): { readonly method: string; readonly id?: string | number; readonly state: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof method !== 'string' || typeof params !== 'object' || params === null) return undefined;
  const state = (params as { requestState?: unknown }).requestState;
  if (typeof state !== 'string') return undefined;
  return { method, state, ...((typeof id === 'string' || typeof id === 'number') && { id }) };
}
