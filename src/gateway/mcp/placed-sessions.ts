/**
 * Serving a request for a session this replica does not hold (docs/replicas.md): relay it to
 * the replica that owns the session while that one is alive; take the session over, and have
 * it re-created here from what its client sent at `initialize`, when the owner is gone. A
 * request another replica relayed here is never relayed again, so two replicas that disagree
 * about an owner cannot bounce a request between them.
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { RequestHead } from '../http/context.js';
import { jsonRpcError } from './json-rpc-error.js';
import type { GatewayPrincipal } from './served-catalog.js';
import type { SessionPlacement } from './session-placement.js';

/** The JSON-RPC code of "the replica serving this session went away mid-request: retry". */
export const REPLICA_LOST_CODE = -32011;

/** Attempts at finding the owner: each failed takeover means another replica just took it. */
const LOCATE_ATTEMPTS = 3;

/** What serving a session elsewhere came to: an answer, or the session to serve here. */
export type Placed = { readonly answer: Response } | { readonly restore: unknown };

/**
 * Finds where session `id` lives and relays the request there, or says to re-create it here
 * from `restore` (the stored state) when this replica owns it now.
 */
export async function servePlaced(options: {
  readonly placement: SessionPlacement;
  readonly id: string;
  readonly kind: 'streamable' | 'sse';
  readonly source: {
    readonly head: RequestHead;
    readonly request: () => Request;
    readonly signal: AbortSignal;
  };
  readonly principal: GatewayPrincipal;
  readonly body: unknown;
}): Promise<Placed> {
  const { placement, id, source, principal } = options;
  const relayed = placement.relayed(source.head);
  for (let attempt = 0; attempt < LOCATE_ATTEMPTS; attempt++) {
    const placed = await placement.locate(id);
    // Another principal's session id is answered like an unknown one: nothing to learn from it.
    if (!placed || placed.kind !== options.kind || placed.principal !== principal.id)
      return { answer: notFound(options.kind) };
    if (placed.owner === placement.self) return { restore: placed.state };
    if (placed.ownerUrl !== undefined && !relayed) {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const answer = await placement.relay(placed.ownerUrl, id, source.request(), body, source.signal);
      if (answer instanceof Response) return { answer };
      // It may have acted on the request: never serve it twice. The client retries it, and the
      // retry finds the owner unreachable (and takes the session over) or back.
      if (answer === 'lost') return { answer: replicaLost(options.body) };
    } else if (placed.ownerUrl !== undefined) {
      // Relayed here by a replica that thinks this one owns it, while the store names a live
      // other: the two will agree in a moment (a takeover just happened).
      return { answer: replicaLost(options.body) };
    }
    // The owner is gone (its heartbeat stopped, or it refused the connection). An SSE
    // session's stream went with it: its client must open a new one.
    if (options.kind === 'sse') return { answer: notFound('sse') };
    if (await placement.takeOver(id, placed.owner)) return { restore: placed.state };
  }
  return { answer: replicaLost(options.body) };
}

/** The initialize request a session was opened with, as stored (`{ initialize }`). */
export function storedInitialize(state: unknown): unknown {
  return typeof state === 'object' && state !== null
    ? (state as { initialize?: unknown }).initialize
    : undefined;
}

/**
 * Re-creates a 2025 session in `transport` (connected to a new server for its principal): the
 * client's `initialize`, as stored, is played to it, then `notifications/initialized`, so the
 * SDK's server and transport hold what the client negotiated, under the session's own id
 * (the transport's `sessionIdGenerator` gives it). False when the stored request is refused.
 */
export async function replayInitialize(
  transport: WebStandardStreamableHTTPServerTransport,
  initialize: unknown,
): Promise<boolean> {
  if (typeof initialize !== 'object' || initialize === null) return false;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const opened = await transport.handleRequest(
    new Request(INTERNAL_URL, { method: 'POST', headers, body: JSON.stringify(initialize) }),
    { parsedBody: initialize },
  );
  // The answer went to the client long ago, on the replica that first opened the session.
  await opened.text().catch(() => undefined);
  if (!opened.ok || transport.sessionId === undefined) return false;
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const done = await transport.handleRequest(
    new Request(INTERNAL_URL, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': transport.sessionId },
      body: JSON.stringify(initialized),
    }),
    { parsedBody: initialized },
  );
  await done.text().catch(() => undefined);
  return done.ok;
}

/** The URL of the requests replayed to a transport in-process (never sent anywhere). */
const INTERNAL_URL = 'http://replica.internal/mcp';

function notFound(kind: 'streamable' | 'sse'): Response {
  return kind === 'sse'
    ? jsonRpcError(404, -32001, 'Session not found; open a new SSE stream.')
    : jsonRpcError(404, -32001, 'Session not found; initialize a new one.');
}

const REPLICA_LOST_MESSAGE =
  'The gateway replica serving this session went away while it served this request; retry it.';

/** The JSON-RPC error answering request `id`, which a replica that went away was serving. */
export function replicaLostAnswer(id: string | number): {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string; data: { code: 'REPLICA_LOST'; retryable: true } };
} {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: REPLICA_LOST_CODE,
      message: REPLICA_LOST_MESSAGE,
      data: { code: 'REPLICA_LOST', retryable: true },
    },
  };
}

/**
 * The answer to a request whose replica went away while serving it: a JSON-RPC error for its
 * id (a client fails that one call, and may retry it), or 503 with `Retry-After` when the
 * request has no single id (a GET stream, notifications).
 */
export function replicaLost(body: unknown): Response {
  const id =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as { id?: unknown }).id
      : undefined;
  if (typeof id === 'string' || typeof id === 'number') return Response.json(replicaLostAnswer(id));
  const response = jsonRpcError(503, REPLICA_LOST_CODE, REPLICA_LOST_MESSAGE);
  response.headers.set('retry-after', '1');
  return response;
}
