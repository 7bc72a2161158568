/**
 * Relays one request to the replica that owns its session, and its answer back, streamed as
 * it comes (an SSE stream stays an SSE stream). undici's `request`, not `fetch`: the owner
 * must see the caller's own `Host` (its DNS-rebinding check judges it), which `fetch` replaces.
 */
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';

/** What a forwarded request carries: the caller's request, with the forwarding proof added. */
export interface ForwardedRequest {
  readonly method: string;
  /** Path and query, e.g. `/mcp` or `/mcp/messages?sessionId=…`. */
  readonly path: string;
  readonly headers: Headers;
  readonly body?: string;
  readonly signal: AbortSignal;
}

/**
 * Why a forward failed: `unreachable` when no connection was made (the owner is not listening:
 * nothing was served, the request may be served elsewhere), `lost` when the connection broke
 * after the request went out (the owner may have acted on it: it must not be served twice).
 */
export type ForwardFailure = 'unreachable' | 'lost';

/** Hop-by-hop fields (RFC 9110 §7.6.1) and what the relay's own framing replaces. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Forwards to the peers; one keep-alive pool for them all. */
export class RequestForwarder {
  // No body or header timeout: a GET stream may be quiet for long, and a call is bounded by
  // the owner's own request timeout. A peer that does not answer a connect in 2 s is down.
  private readonly agent = new Agent({
    connect: { timeout: 2_000 },
    bodyTimeout: 0,
    headersTimeout: 0,
    keepAliveTimeout: 30_000,
  });

  /** The owner's answer, or why there is none. */
  async forward(baseUrl: string, forwarded: ForwardedRequest): Promise<Response | ForwardFailure> {
    const headers: Record<string, string> = {};
    forwarded.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    });
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(new URL(forwarded.path, baseUrl), {
        method: forwarded.method as 'GET',
        headers,
        ...(forwarded.body !== undefined && { body: forwarded.body }),
        signal: forwarded.signal,
        dispatcher: this.agent,
      });
    } catch (error) {
      if (forwarded.signal.aborted) throw error;
      const code = (error as { code?: unknown }).code;
      return typeof code === 'string' && UNREACHABLE.has(code) ? 'unreachable' : 'lost';
    }
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
    }
    // A body that breaks mid-way (the owner died) ends the caller's stream with an error, as
    // the owner's own stream would have: a client resumes it like any dropped stream.
    const body =
      answer.statusCode === 204 || forwarded.method === 'HEAD' ? null : Readable.toWeb(answer.body);
    if (body === null) answer.body.resume();
    return new Response(body as ReadableStream<Uint8Array> | null, {
      status: answer.statusCode,
      headers: out,
    });
  }

  /** Ends the pool's connections. */
  async close(): Promise<void> {
    // Streams still relayed end with the pool: their callers resume them like dropped streams.
    await this.agent.destroy().catch(() => undefined);
  }
}
