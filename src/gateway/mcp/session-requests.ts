import { type Server, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * How a 2025 session's requests are read before its transport or the fast path serves them:
 * the protocol version they are judged by, and the cancellations they carry for calls the
 * fast path runs.
 */

/**
 * The request as the transport should judge it: by the version the session negotiated, when
 * a request's `MCP-Protocol-Version` names another supported one. The SDK decides from that
 * header alone whether a POST stream opens with a priming event (and so whether it can be
 * resumed), but what a client can parse — an empty `data:` event from 2025-11-25 on — is what
 * it said at `initialize`; the spec has the header SHOULD repeat that version anyway.
 * Unsupported versions are left alone, for the transport to refuse with 400.
 */
export function asNegotiated(request: Request, server: Server): Request {
  const negotiated = server.getNegotiatedProtocolVersion();
  const sent = request.headers.get('mcp-protocol-version');
  if (negotiated === undefined || sent === null || sent === negotiated) return request;
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(sent)) return request;
  const headers = new Headers(request.headers);
  headers.set('mcp-protocol-version', negotiated);
  return new Request(request, { headers });
}

/**
 * A client's `notifications/cancelled` for a call the fast path runs aborts it (the message
 * still goes to the SDK, which has no such request and ignores it, as the spec allows).
 */
export function noticeCancellations(
  session: { readonly fastCalls: ReadonlyMap<string | number, AbortController> },
  body: unknown,
): void {
  if (session.fastCalls.size === 0) return;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as {
      method?: unknown;
      params?: { requestId?: unknown; reason?: unknown };
    };
    if (method !== 'notifications/cancelled' || typeof params !== 'object' || params === null) continue;
    const id = params.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    const reason = typeof params.reason === 'string' ? params.reason : 'The client cancelled the request.';
    session.fastCalls.get(id)?.abort(new Error(reason));
  }
}
