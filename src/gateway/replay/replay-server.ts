import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { ReplayAnswer, ReplayMatcher, ReplayMiss } from '../../client/recording/replay-matcher.js';
import type { ConnectionInfo } from '../http/context.js';

/**
 * Serves a cassette as an MCP server: each request gets what the recorded server sent for the
 * matching recorded request (replay-matcher.ts) — its notifications and requests, then its
 * response — optionally at the recorded pace. Not an SDK `Server`: replay answers exactly the
 * recorded messages, which an SDK server would re-encode, validate or answer itself (`ping`,
 * `initialize`), so it works on raw JSON-RPC, over the SDK's stdio transport or the small HTTP
 * handler below. Notifications and the client's answers to recorded server requests are
 * taken and not answered, as a server takes them.
 */

export interface ReplayOptions {
  /** Wait the recorded time before each message (default: answer at once). */
  readonly timing?: boolean;
  /** Told of each request no recording matched (for the replay's stderr). */
  readonly onMiss?: (method: string, miss: ReplayMiss) => void;
}

type Incoming = { id?: string | number; method?: string; params?: Record<string, unknown> };

function isRequest(m: Incoming): m is Required<Pick<Incoming, 'id' | 'method'>> & Incoming {
  return typeof m.method === 'string' && m.id !== undefined && m.id !== null;
}

/** The messages to send for `message`: none for a notification or an answer. */
function replyTo(
  matcher: ReplayMatcher,
  message: Incoming,
  options: ReplayOptions,
): ReplayAnswer['messages'] {
  if (!isRequest(message)) return [];
  const answer = matcher.answer({
    id: message.id,
    method: message.method,
    ...(message.params && { params: message.params }),
  });
  if ('messages' in answer) return answer.messages;
  options.onMiss?.(message.method, answer);
  return [{ message: { jsonrpc: '2.0', id: message.id, error: answer } as JSONRPCMessage, afterMs: 0 }];
}

/** Sends `messages` through `send`, at their recorded times when asked. */
async function play(
  messages: ReplayAnswer['messages'],
  send: (m: JSONRPCMessage) => Promise<void> | void,
  timing: boolean,
): Promise<void> {
  const start = Date.now();
  for (const { message, afterMs } of messages) {
    const wait = timing ? afterMs - (Date.now() - start) : 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await send(message);
  }
}

/** Replays on `transport` (e.g. the SDK's stdio server transport) until it closes. */
export async function replayOnTransport(
  transport: Transport,
  matcher: ReplayMatcher,
  options: ReplayOptions = {},
): Promise<{ readonly closed: Promise<void> }> {
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  transport.onmessage = (message) => {
    const messages = replyTo(matcher, message as Incoming, options);
    void play(messages, (m) => transport.send(m), options.timing === true).catch(() => undefined);
  };
  transport.onerror = () => undefined;
  await transport.start();
  return { closed };
}

/**
 * The replay over Streamable HTTP, both eras: a POST of one request is answered with its
 * response as JSON, or, when recorded messages come before it, as an SSE stream of them all; a
 * notification or an answer gets 202; an `initialize` result carries a fresh `Mcp-Session-Id`
 * (a 2025 client sends it back; replay keeps no session state, so any id is taken). GET has no
 * stream to offer (405) and DELETE ends nothing (200).
 */
export function replayHttpHandler(
  matcher: ReplayMatcher,
  options: ReplayOptions = {},
): (request: Request, info: ConnectionInfo) => Promise<Response> {
  return async (request, info) => {
    if (request.method === 'DELETE') return new Response(null, { status: 200 });
    if (request.method !== 'POST')
      return new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } });
    const bytes = info.body
      ? await info.body.read(16 * 1024 * 1024)
      : new Uint8Array(await request.arrayBuffer());
    let message: Incoming;
    try {
      message = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array())) as Incoming;
    } catch {
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        { status: 400 },
      );
    }
    const messages = replyTo(matcher, message, options);
    if (messages.length === 0) return new Response(null, { status: 202 });
    const headers: Record<string, string> = {};
    if (message.method === 'initialize') headers['mcp-session-id'] = randomUUID();
    if (messages.length === 1 && !options.timing) {
      return new Response(JSON.stringify(messages[0]!.message), {
        status: 200,
        headers: { ...headers, 'content-type': 'application/json' },
      });
    }
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        await play(
          messages,
          (m) => controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`)),
          options.timing === true,
        );
        controller.close();
      },
    });
    return new Response(body, {
      status: 200,
      headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
  };
}
