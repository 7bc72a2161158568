/**
 * The bare relay, a reference for the gateway benchmark (target f): the least any HTTP→stdio
 * hop can cost on this machine. It spawns the echo upstream, opens one 2025-11-25 session with
 * it, and relays each POSTed request's method and params (the 2026-07-28 envelope dropped) with
 * an id of its own, answering with the upstream's result as JSON. No SDK, no validation, no
 * security, no sessions worth the name: it is no MCP server anyone should use, only a floor
 * for what the gateway's own work adds.
 *
 *   node bare-relay.mjs <echo-upstream.mjs>   prints `listening http://127.0.0.1:<port>/mcp`
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

const upstreamPath = process.argv[2];
if (upstreamPath === undefined) throw new Error('usage: bare-relay <echo-upstream.mjs>');
const upstream = spawn(process.execPath, [upstreamPath], { stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
let nextId = 1;
let buffered = '';
upstream.stdout.setEncoding('utf8');
upstream.stdout.on('data', (chunk: string) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown; error?: unknown };
    buffered = buffered.slice(end + 1);
    const answer = message.id === undefined ? undefined : pending.get(message.id);
    if (answer) {
      pending.delete(message.id!);
      answer(message);
    }
  }
});

// Writes of one turn of the event loop go to the upstream together.
let corked = false;
function send(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    if (!corked) {
      corked = true;
      upstream.stdin.cork();
      setImmediate(() => {
        corked = false;
        upstream.stdin.uncork();
      });
    }
    upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
}

const info = { name: 'bare-relay', version: '1.0.0' };
await send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info });
upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST') {
      res.writeHead(200).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: string | number;
      method: string;
      params?: { _meta?: unknown };
    };
    if (body.method === 'initialize') {
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: info };
      json(res, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': randomUUID() });
      return;
    }
    if (body.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const { _meta, ...params } = body.params ?? {};
    void send(body.method, params).then(({ result, error }) =>
      json(res, { jsonrpc: '2.0', id: body.id, ...(error === undefined ? { result } : { error }) }),
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    upstream.kill();
    server.close();
    process.exit(0);
  });
}
