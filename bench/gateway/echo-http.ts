import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * The floor of the gateway benchmark: the echo server on Streamable HTTP with nothing in
 * front, so any HTTP hop costs at least this much. Both eras on `/mcp`, routed by the SDK's
 * classifier: 2025-era sessions (`Mcp-Session-Id`) on `WebStandardStreamableHTTPServerTransport`,
 * 2026-07-28 requests on `createMcpHandler` (one instance per request).
 */
export async function serveEchoHttp(build: () => Server): Promise<{ url: string }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const modern = createMcpHandler(build, { legacy: 'reject' });

  const legacy = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const transport = sessions.get(id);
      if (!transport)
        return Response.json(
          { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
          { status: 404 },
        );
      return transport.handleRequest(request, { parsedBody });
    }
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody))
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'No session' }, id: null },
        { status: 400 },
      );
    const server = build();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  };

  const http = createServer((req, res) => {
    serve(req, res, async (request, parsedBody) =>
      (await isLegacyRequest(request, parsedBody))
        ? legacy(request, parsedBody)
        : modern.fetch(request, parsedBody === undefined ? {} : { parsedBody }),
    ).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  // Node's 5 s default closes a keep-alive socket the driver is about to reuse between two
  // phases of slow 1 MiB calls ("socket hang up"); the gateway's server keeps them longer too.
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

/** Node request → web `Request` (body read whole) → handler → streamed Node response. */
async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handle: (request: Request, parsedBody: unknown) => Promise<Response>,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(body.length > 0 && { body }),
  });
  let parsedBody: unknown;
  if (body.length > 0) {
    try {
      parsedBody = JSON.parse(body.toString('utf8'));
    } catch {
      parsedBody = undefined;
    }
  }
  const response = await handle(request, parsedBody);
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  res.writeHead(response.status, out);
  if (!response.body) {
    res.end();
    return;
  }
  // A JSON answer goes out in one write; an SSE stream chunk by chunk, as the SDK enqueues it.
  if (!(out['content-type'] ?? '').includes('text/event-stream')) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The client went away mid-stream; nothing left to answer.
  } finally {
    res.end();
  }
}
