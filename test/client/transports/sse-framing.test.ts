import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';

/**
 * SSE details of Streamable HTTP against a hand-written server (the SDK's servers always
 * frame with "\n\n" and never drop a stream on purpose): other line endings, `retry:`, and
 * resumption with `Last-Event-ID` on a GET after the POST stream closes early.
 */
type Json = Record<string, unknown>;
interface Seen {
  method: string;
  lastEventId?: string;
  at: number;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r));
  server = undefined;
});

function result(id: unknown, method: string): Json {
  if (method === 'initialize') {
    return {
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'raw-sse', version: '1' },
    };
  }
  if (method === 'tools/list') return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
  return { content: [{ type: 'text', text: `answer to ${String(id)}` }] };
}

async function start(
  eol: string,
  opts: { dropCallStream?: boolean } = {},
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  let parked: Json | undefined;
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    if (req.method === 'GET') {
      seen.push({ method: 'GET', ...(lastEventId && { lastEventId }), at: Date.now() });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (parked && lastEventId === 'e1') {
        res.write(`id: e2${eol}event: message${eol}data: ${JSON.stringify(parked)}${eol}${eol}`);
        parked = undefined;
      }
      res.end();
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(405).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    const msg = JSON.parse(body) as { id?: unknown; method: string };
    seen.push({ method: msg.method, at: Date.now() });
    if (msg.id === undefined) return void res.writeHead(202).end();
    const response = { jsonrpc: '2.0', id: msg.id, result: result(msg.id, msg.method) };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (opts.dropCallStream && msg.method === 'tools/call') {
      // Prime the stream with an id and a retry hint, then close it without the answer.
      parked = response;
      res.end(`id: e1${eol}retry: 40${eol}data: ${eol}${eol}`);
      return;
    }
    // A comment line and a multi-line data field, framed with the chosen line ending.
    const json = JSON.stringify(response);
    const half = json.indexOf(',') + 1;
    res.end(
      `: keep-alive${eol}event: message${eol}data: ${json.slice(0, half)}${eol}data: ${json.slice(half)}${eol}${eol}`,
    );
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`, seen };
}

function connect(url: string): Connection {
  return new Connection({
    config: normalizeServerEntry({ name: 'raw', url, protocol: 'legacy' }),
    eraStore: new MemoryEraVerdictStore(),
  });
}

describe('SSE framing', () => {
  it.each([
    ['\\n\\n', '\n'],
    ['\\r\\n\\r\\n', '\r\n'],
    ['\\r\\r', '\r'],
  ])('reads events separated by %s', async (_label, eol) => {
    const { url } = await start(eol);
    const conn = connect(url);
    await conn.connect();
    expect(conn.protocolVersion).toBe('2025-06-18');
    expect((await conn.callTool('echo', {})).text).toMatch(/^answer to \d+$/);
    await conn.close();
  });
});

describe('SSE resumption', () => {
  it('honours retry: and resumes with Last-Event-ID when the stream closes early', async () => {
    const { url, seen } = await start('\n', { dropCallStream: true });
    const conn = connect(url);
    await conn.connect();
    const r = await conn.callTool('echo', {});
    expect(r.text).toMatch(/^answer to \d+$/);
    const call = seen.find((s) => s.method === 'tools/call')!;
    const resume = seen.find((s) => s.method === 'GET' && s.lastEventId === 'e1');
    expect(resume).toBeDefined();
    // retry: 40 ms, not the 500 ms default backoff (wide margin for a loaded machine).
    expect(resume!.at - call.at).toBeGreaterThanOrEqual(30);
    expect(resume!.at - call.at).toBeLessThan(450);
    await conn.close();
  });
});
