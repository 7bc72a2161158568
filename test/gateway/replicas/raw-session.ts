import { SseReader } from '../sse-events.js';

/**
 * A 2025 session spoken by hand, one request at a time to whichever replica a test names,
 * so a test decides where each request lands (the balancer decides in the SDK-driven tests).
 */
export type Message = Record<string, unknown>;

export const PROTOCOL = '2025-11-25';

export function headers(
  token: string,
  session?: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    ...(session !== undefined && { 'mcp-session-id': session }),
    ...extra,
  };
}

export function post(origin: string, token: string, body: unknown, session?: string): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: headers(token, session),
    body: JSON.stringify(body),
  });
}

/** The one JSON-RPC message a POST answered with, as JSON or on its SSE stream. */
export async function answerOf(response: Response): Promise<Message> {
  if (response.headers.get('content-type')?.startsWith('text/event-stream'))
    return (await new SseReader(response.body).nextMessage(20_000)).message;
  return (await response.json()) as Message;
}

export function initializeBody(id = 0): Message {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'replica-test', version: '1' },
    },
  };
}

export function callBody(id: number, name: string, args: Record<string, unknown>): Message {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** Opens a session on `origin` and says it is initialized; returns its id. */
export async function openSession(origin: string, token: string): Promise<string> {
  const opened = await post(origin, token, initializeBody());
  if (opened.status !== 200) throw new Error(`initialize: ${opened.status} ${await opened.text()}`);
  const session = opened.headers.get('mcp-session-id');
  await answerOf(opened);
  if (!session) throw new Error('initialize answered without a session id');
  const initialized = await post(
    origin,
    token,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    session,
  );
  await initialized.text();
  if (initialized.status !== 202) throw new Error(`notifications/initialized: ${initialized.status}`);
  return session;
}
