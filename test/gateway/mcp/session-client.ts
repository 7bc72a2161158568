import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';
import type { GatewayPrincipal } from '../../../src/gateway/mcp/served-catalog.js';

/**
 * A 2025-era Streamable HTTP client in a few functions, driving an `McpEndpoint` in-process
 * with web `Request`s: open a session, POST messages on it with the headers a client sends,
 * and read the JSON-RPC messages of an SSE answer.
 */

/** The headers every POST of a 2025-era client carries. */
export const POST_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
} as const;

/** One session of `principal` on an endpoint, with the version it negotiated. */
export interface Session {
  readonly endpoint: McpEndpoint;
  readonly principal: GatewayPrincipal;
  readonly id: string;
  readonly version: string;
}

/** A request to `/mcp` with `body` (POST) or none (other methods), and the headers given. */
export function mcpRequest(
  body: unknown,
  headers: Record<string, string>,
  options: { readonly method?: string; readonly signal?: AbortSignal } = {},
): Request {
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  return new Request('http://127.0.0.1/mcp', {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
    ...(options.signal && { signal: options.signal }),
  });
}

/**
 * Opens a session: `initialize` with `version` and `capabilities`, then
 * `notifications/initialized`, as a client does before its first call.
 */
export async function openSession(
  endpoint: McpEndpoint,
  principal: GatewayPrincipal,
  options: { readonly version: string; readonly capabilities?: ClientCapabilities },
): Promise<Session> {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: options.version,
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'session-test', version: '1.0.0' },
    },
  };
  const opened = await endpoint.handle(mcpRequest(initialize, { ...POST_HEADERS }), principal, initialize);
  const answer = messagesOf(await opened.text());
  const id = opened.headers.get('mcp-session-id');
  if (opened.status !== 200 || id === null) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  const negotiated = (answer[0] as { result?: { protocolVersion?: string } }).result?.protocolVersion;
  if (negotiated !== options.version) throw new Error(`negotiated ${negotiated}, not ${options.version}`);
  const session: Session = { endpoint, principal, id, version: options.version };
  const initialized = await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized: ${initialized.status}`);
  return session;
}

/** The headers a client sends on `session`: the POST headers, its id and its version. */
export function sessionHeaders(session: Session): Record<string, string> {
  return { ...POST_HEADERS, 'mcp-session-id': session.id, 'mcp-protocol-version': session.version };
}

/** POSTs `body` on `session`, with its headers and `headers` over them. */
export function post(
  session: Session,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const all = { ...sessionHeaders(session), ...headers };
  return session.endpoint.handle(mcpRequest(body, all), session.principal, body);
}

/** Resumes a stream of `session` after the event `lastEventId`: `GET` with `Last-Event-ID`. */
export function resume(session: Session, lastEventId: string): Promise<Response> {
  const headers = {
    accept: 'text/event-stream',
    'mcp-session-id': session.id,
    'mcp-protocol-version': session.version,
    'last-event-id': lastEventId,
  };
  return session.endpoint.handle(mcpRequest(undefined, headers), session.principal);
}

/** A `tools/call` request body; `extra` goes into its params (`_meta`, say). */
export function toolCallBody(
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } };
}

/** The JSON-RPC messages of an SSE body, in order (events with empty data, priming ones, skipped). */
export function messagesOf(sse: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of sse.split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() !== '') messages.push(JSON.parse(data));
  }
  return messages;
}

/** What a test compares of an answer, SSE or JSON: status, headers (the session's id aside) and messages. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly sessionId: string | null;
  readonly text: string;
  readonly messages: unknown[];
}

/** Reads `response` whole into an {@link Answer}: the messages of its SSE events, or its JSON body. */
export async function readAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'mcp-session-id'));
  const json = response.headers.get('content-type') === 'application/json';
  return {
    status: response.status,
    headers,
    sessionId: response.headers.get('mcp-session-id'),
    text,
    messages: json ? [JSON.parse(text)] : messagesOf(text),
  };
}
