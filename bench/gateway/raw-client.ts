import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { echoArguments, isEchoAnswer, type SizeKey } from './payloads.js';

/** The two protocol eras a target may speak. */
export type Era = 'legacy' | 'modern';

/** One open line to a target on which `echo` can be called, by either driver. */
export interface CallSession {
  /** Calls `echo` for the session's result size and checks the answer (payloads.ts). */
  call(): Promise<void>;
  close(): Promise<void>;
}

const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'gateway-bench', version: '1.0.0' };

/**
 * A light Streamable HTTP client: `node:http` with a keep-alive agent, JSON-RPC bodies built
 * by hand, responses read as JSON or as SSE `data:` lines. It spends a few microseconds per
 * call where the SDK client spends milliseconds, so a target's own cost is not hidden behind
 * the client's on a small machine.
 *
 * - `legacy` (2025-11-25): `initialize` → `Mcp-Session-Id` → `notifications/initialized` →
 *   `tools/call` with the session header; `close()` sends DELETE.
 * - `modern` (2026-07-28): no session; every request carries the `_meta` envelope (protocol
 *   version, client info, capabilities) and the `Mcp-Method` / `Mcp-Name` headers (SEP-2243).
 */
export async function openRawSession(options: {
  url: string;
  era: Era;
  timeoutMs: number;
  maxSockets?: number;
  /** The result size each call asks for; `small` unless given. */
  size?: SizeKey;
  /** The served name of the echo tool; `echo` unless given. */
  tool?: string;
  /** Headers every request carries (a bearer token). */
  headers?: Record<string, string>;
  /** Told the session id a 2025-era target gave. */
  onSession?: (id: string) => void;
}): Promise<CallSession> {
  const size = options.size ?? 'small';
  const tool = options.tool ?? 'echo';
  const echoArgs = echoArguments(size);
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const send = (method: string, headers: Record<string, string>, body?: string) =>
    exchange(agent, url, method, headers, body, options.timeoutMs);
  let nextId = 1;
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...options.headers,
  };

  if (options.era === 'modern') {
    const headers = {
      ...base,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    };
    const params = JSON.stringify({
      name: tool,
      arguments: echoArgs,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    return {
      call: async () => {
        const id = nextId++;
        const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
        checkEcho(await send('POST', headers, body), id, size);
      },
      close: async () => agent.destroy(),
    };
  }

  try {
    const init = await send(
      'POST',
      base,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
      }),
    );
    const result = resultOf(init, 0) as { protocolVersion?: unknown };
    const sessionId = init.headers['mcp-session-id'];
    if (typeof sessionId === 'string') options.onSession?.(sessionId);
    const headers: Record<string, string> = {
      ...base,
      'mcp-protocol-version':
        typeof result.protocolVersion === 'string' ? result.protocolVersion : LEGACY_VERSION,
      ...(typeof sessionId === 'string' && { 'mcp-session-id': sessionId }),
    };
    const initialized = await send(
      'POST',
      headers,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    if (initialized.status >= 300)
      throw new Error(
        `notifications/initialized: HTTP ${initialized.status} ${initialized.text.slice(0, 200)}`,
      );
    const params = JSON.stringify({ name: tool, arguments: echoArgs });
    return {
      call: async () => {
        const id = nextId++;
        const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
        checkEcho(await send('POST', headers, body), id, size);
      },
      close: async () => {
        if (typeof sessionId === 'string')
          await send('DELETE', {
            ...options.headers,
            'mcp-session-id': sessionId,
            'mcp-protocol-version': headers['mcp-protocol-version']!,
          }).catch(() => undefined);
        agent.destroy();
      },
    };
  } catch (error) {
    agent.destroy();
    throw error;
  }
}

interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function exchange(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.once('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of a response: a JSON body (one message or a batch) or SSE events. */
function messagesOf(response: Exchange): unknown[] {
  const type = response.headers['content-type'] ?? '';
  if (type.includes('text/event-stream')) {
    const messages: unknown[] = [];
    // A plain split unless the stream uses CRLF: a regex over a 1 MiB answer costs the driver milliseconds.
    const events = response.text.includes('\r')
      ? response.text.split(/\r?\n\r?\n/)
      : response.text.split('\n\n');
    for (const event of events) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') messages.push(JSON.parse(data));
    }
    return messages;
  }
  const parsed: unknown = response.text === '' ? [] : JSON.parse(response.text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

function resultOf(response: Exchange, id: number): unknown {
  let messages: unknown[];
  try {
    messages = messagesOf(response);
  } catch {
    throw new Error(`HTTP ${response.status}, unreadable body: ${response.text.slice(0, 200)}`);
  }
  const answer = messages.find((m) => (m as { id?: unknown } | null)?.id === id) as
    | { result?: unknown; error?: { code?: unknown; message?: unknown } }
    | undefined;
  if (answer?.error) throw new Error(`JSON-RPC error ${answer.error.code}: ${answer.error.message}`);
  if (response.status !== 200 || answer?.result === undefined)
    throw new Error(`HTTP ${response.status}, no result for id ${id}: ${response.text.slice(0, 200)}`);
  return answer.result;
}

function checkEcho(response: Exchange, id: number, size: SizeKey): void {
  const result = resultOf(response, id);
  if (!isEchoAnswer(result, size))
    throw new Error(`echo answered something else: ${JSON.stringify(result).slice(0, 200)}`);
}
