import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { isSwitchboardError, type SwitchboardError } from '../../core/errors.js';

/**
 * Outbound HTTP whose every connection is judged where it is made: the socket's own DNS lookup
 * resolves the host, the judge (the host's network policy) sees every address, and the socket
 * connects only to addresses that passed — there is no second resolution to rebind between
 * the check and the connect. An IP literal (which a socket connects to without a lookup) is
 * judged before the connect. Redirects, reconnects and keep-alive renewals open sockets
 * through the same connector, so each is checked; a reused socket was checked when it opened.
 * DNS work is only what a new socket does anyway: nothing per request.
 *
 * Built on the `undici` package's `Agent` (its `connect` hook), with undici's own `fetch`: the
 * Agent of one undici major passed to the `fetch` Node bundles (another major on other Node
 * versions) fails on mismatched handler methods. Responses are handed back as the global
 * `Response`, since the SDK recognises error bodies with `instanceof Response`.
 */

/** One address a host name resolved to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to all its addresses. Default: the system resolver (`dns.lookup`). */
export type AddressResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * Judges one connect: undefined allows `host` at `addresses` (all it resolved to, or the
 * literal), else the error that refuses it (POLICY_DENIED, saying why and what to do).
 */
export type AddressJudge = (host: string, addresses: readonly string[]) => SwitchboardError | undefined;

export interface GuardedFetchOptions {
  readonly judge: AddressJudge;
  readonly resolve?: AddressResolver;
  /** Connect timeout per socket, ms. Default 10 s (undici's). */
  readonly connectTimeoutMs?: number;
}

/**
 * The guard the host hands to the connections of guarded servers. Each connect attempt opens
 * its own `GuardedFetch` (a connection pool of its own, closed with its transport), so a
 * reload or reconnect resolves and judges afresh, and no socket is shared between servers.
 */
export interface NetworkGuard {
  open(): GuardedFetch;
}

/**
 * Outbound HTTP of one connection (Streamable HTTP, HTTP+SSE, OAuth discovery and token
 * requests): `fetch` connects only where the judge allows; `close()` ends its sockets.
 */
export interface GuardedFetch {
  readonly fetch: FetchLike;
  close(): Promise<void>;
}

/** Status codes whose responses have no body (Fetch Standard "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The guard of `options.judge`: every socket its fetches open is judged (see above). */
export function createNetworkGuard(options: GuardedFetchOptions): NetworkGuard {
  const { judge } = options;
  const resolve = options.resolve ?? systemResolver;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (all) => {
        const refusal = judge(
          hostname,
          all.map((a) => a.address),
        );
        if (refusal) return callback(refusal, '', 0);
        const family = familyOf(lookupOptions.family);
        const usable = family === undefined ? all : all.filter((a) => a.family === family);
        const first = usable[0];
        if (!first) return callback(notFound(hostname), '', 0);
        if (lookupOptions.all)
          return (callback as AllCallback)(
            null,
            usable.map((a) => ({ ...a })),
          );
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  const connectThroughLookup = buildConnector({
    lookup,
    ...(options.connectTimeoutMs !== undefined && { timeout: options.connectTimeoutMs }),
  });
  const connect: buildConnector.connector = (target, callback) => {
    // A socket skips the lookup for an IP literal (net.connect does when isIP is true).
    if (isIP(target.hostname) !== 0) {
      const refusal = judge(target.hostname, [target.hostname]);
      if (refusal) return callback(refusal, null);
    }
    connectThroughLookup(target, callback);
  };
  return {
    open: () => {
      const agent = new Agent({ connect });
      return {
        fetch: async (url, init) => {
          let response: Awaited<ReturnType<typeof undiciFetch>>;
          try {
            response = await undiciFetch(url, {
              ...(init as Parameters<typeof undiciFetch>[1]),
              dispatcher: agent,
            });
          } catch (error) {
            throw refusalIn(error) ?? error;
          }
          return asGlobalResponse(response);
        },
        // Its transport is closed: nothing of it may linger (an event stream, an idle socket).
        close: () => agent.destroy(),
      };
    },
  };
}

/**
 * A fetch that remembers the last network-policy refusal it met. The SDK's transports wrap the
 * errors their fetch throws (a failed negotiation probe) or keep only the text (the HTTP+SSE
 * event stream), so the connect's typed error is taken from here (attempt-failure.ts).
 */
export interface RefusalWitness {
  readonly fetch: FetchLike;
  readonly refusal: SwitchboardError | undefined;
}

export function witnessRefusals(fetch: FetchLike): RefusalWitness {
  let refusal: SwitchboardError | undefined;
  return {
    fetch: async (url, init) => {
      try {
        return await fetch(url, init);
      } catch (error) {
        if (isSwitchboardError(error, 'POLICY_DENIED')) refusal = error;
        throw error;
      }
    },
    get refusal() {
      return refusal;
    },
  };
}

type AllCallback = (
  error: NodeJS.ErrnoException | null,
  addresses: { address: string; family: number }[],
) => void;

/** The system resolver (`dns.lookup`, every address, in the order the system gives). */
export async function systemResolver(hostname: string): Promise<readonly ResolvedAddress[]> {
  const all = await systemLookup(hostname, { all: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function familyOf(family: unknown): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/** The judge's refusal, wherever undici wrapped it ("fetch failed" → cause). */
function refusalIn(error: unknown): SwitchboardError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (isSwitchboardError(e, 'POLICY_DENIED')) return e;
  return undefined;
}

/** undici's Response as the global class, same status, headers, body, `url` and `redirected`. */
function asGlobalResponse(response: Awaited<ReturnType<typeof undiciFetch>>): Response {
  const body = NULL_BODY.has(response.status) ? null : (response.body as ReadableStream<Uint8Array> | null);
  const global = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers as unknown as Headers,
  });
  Object.defineProperties(global, {
    url: { value: response.url },
    redirected: { value: response.redirected },
  });
  return global;
}
