import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server';

/**
 * What the gateway keeps of a relayed multi-round call between rounds — in the `requestState`
 * the client echoes, never in memory, so any gateway instance sharing the key can serve the
 * next round. Sealed with the SDK's HMAC codec and bound to the principal and method: a
 * modified, expired or borrowed state is refused (-32602) before a handler runs.
 */
export interface RelayState {
  /** The served name of the tool or prompt the rounds belong to. */
  readonly n: string;
  /** Digest of the arguments: a round must repeat the first round's arguments. */
  readonly h: string;
  /** The caller already consented to this call (the consent gate asks once per call). */
  readonly c?: true;
  /** The upstream server's own `requestState`, passed back to it byte for byte. */
  readonly u?: string;
  /** The id of the call parked in this gateway process for a 2025-era upstream (parked-calls.ts). */
  readonly p?: string;
  /**
   * The gateway replica that alone can serve the next round (docs/replicas.md): the one holding
   * the parked call, or running the stdio server whose state `u` is. The others relay it there.
   */
  readonly r?: string;
}

/** The state codec of one gateway: `key` is shared by every instance (see `relayStateKey`). */
export function relayStateCodec(key: Uint8Array): RequestStateCodec<RelayState> {
  return createRequestStateCodec<RelayState>({
    key,
    ttlSeconds: 600,
    bind: (ctx) => `${ctx.mcpReq.method}\u0000${ctx.http?.authInfo?.clientId ?? ''}`,
  });
}

/**
 * The key sealing relay states, derived from Switchboard's secret key (so gateways that share
 * `SWITCHBOARD_SECRET_KEY` accept each other's states), or random per process without one.
 */
export function relayStateKey(secret?: Uint8Array): Uint8Array {
  if (!secret) return randomBytes(32);
  return new Uint8Array(hkdfSync('sha256', secret, 'switchboard', 'gateway relay state v1', 32));
}

/** A stable digest of call arguments (key order does not matter). */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url').slice(0, 22);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
