import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken, parseGateway, resolveGateway } from '../../../src/core/config/gateway-config.js';
import type { GatewayContext, Handler, WebHandler } from '../../../src/gateway/http/context.js';
import { listen, type NodeListener } from '../../../src/gateway/http/node-adapter.js';
import { preparedResponse } from '../../../src/gateway/http/prepared-response.js';
import { buildSecurityChain } from '../../../src/gateway/http/security-chain.js';
import { recordingLogger } from './harness.js';

const TOKEN = 'adapter-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };

let listener: NodeListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

/** The chain (bearer auth, 1 KiB body cap) around `handler`, served on 127.0.0.1:0. */
async function serve(handler: Handler): Promise<NodeListener> {
  const settings = resolveGateway(
    parseGateway(
      {
        auth: { mode: 'bearer', tokens: [{ id: 'ci', sha256: hashToken(TOKEN) }] },
        limits: { bodyBytes: 1024 },
      },
      'test.json',
    ),
  );
  // bind.port is the configured one; the Host check uses the port the connection really hit.
  const chain: WebHandler = buildSecurityChain(settings, handler, {
    bind: { host: '127.0.0.1', port: 7777 },
    log: recordingLogger(),
  });
  listener = await listen(chain, { host: '127.0.0.1', port: 0 });
  return listener;
}

/** A plain node:http request, so Host and framing can be set by hand. */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** A promise with its resolve function, to let a test step the server along. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('node adapter', () => {
  it('serves the chain: body in, principal set, response out with its headers', async () => {
    const seen: GatewayContext[] = [];
    const { url, port } = await serve(async (ctx) => {
      seen.push(ctx);
      // The body arrives beside the request (the adapter's request has none): ctx.body.
      return Response.json({ echo: new TextDecoder().decode(ctx.body), principal: ctx.principal?.id });
    });
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const response = await fetch(`${url}/mcp`, { method: 'POST', headers: auth, body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ echo: '{"a":1}', principal: 'ci' });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(seen[0]?.remoteAddress).toBe('127.0.0.1');
    expect(seen[0]?.localPort).toBe(port);
    expect((await fetch(`${url}/mcp`)).status).toBe(401);
  });

  it('hands the chain a head that reads as the web request does, in any case, repeated fields included', async () => {
    const { url } = await serve(async (ctx) => {
      const head = {
        method: ctx.head.method,
        pathname: ctx.head.pathname,
        host: ctx.head.host,
        dup: ctx.head.header('X-Dup'),
        auth: ctx.head.header('authorization'),
        missing: ctx.head.header('x-missing'),
      };
      if (ctx.head.pathname === '/head-only') return Response.json(head);
      const { request } = ctx;
      return Response.json({
        head,
        request: {
          method: request.method,
          url: request.url,
          dup: request.headers.get('x-dup'),
          auth: request.headers.get('authorization'),
        },
        same: ctx.request === request,
      });
    });
    const headers = { ...auth, 'x-dup': ['a', 'b'] } as unknown as Record<string, string>;
    const headOnly = await rawRequest(`${url}/head-only?q=1`, { method: 'POST', headers });
    const { port } = new URL(url);
    expect(JSON.parse(headOnly.body)).toEqual({
      method: 'POST',
      pathname: '/head-only',
      host: `127.0.0.1:${port}`,
      dup: 'a, b',
      auth: `Bearer ${TOKEN}`,
      missing: null,
    });
    const both = JSON.parse((await rawRequest(`${url}/mcp?q=1`, { method: 'POST', headers })).body);
    // The head says what the web request says, repeated fields included.
    expect(both.request).toEqual({
      method: 'POST',
      url: `${url}/mcp?q=1`,
      dup: 'a, b',
      auth: `Bearer ${TOKEN}`,
    });
    expect(both.head.dup).toBe(both.request.dup);
    expect(both.same).toBe(true);
  });

  it('reads each request URL by its own Host and path, however often the same ones come', async () => {
    const { url } = await serve(async (ctx) =>
      Response.json({ pathname: ctx.head.pathname, host: ctx.head.host, url: ctx.request.url }),
    );
    const { port } = new URL(url);
    const seen = [];
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `localhost:${port}`])
      for (const path of ['/mcp?a=1', '/x/../mcp', '/mcp?a=1'])
        seen.push(JSON.parse((await rawRequest(`${url}${path}`, { headers: { ...auth, host } })).body));
    const expected = (host: string) => [
      { pathname: '/mcp', host, url: `http://${host}/mcp?a=1` },
      { pathname: '/mcp', host, url: `http://${host}/mcp` },
      { pathname: '/mcp', host, url: `http://${host}/mcp?a=1` },
    ];
    const [ip, name] = [`127.0.0.1:${port}`, `localhost:${port}`];
    expect(seen).toEqual([...expected(ip), ...expected(name), ...expected(ip), ...expected(name)]);
  });

  it('refuses a method fetch forbids (TRACE) with 400 before the chain runs', async () => {
    let ran = false;
    const { url } = await serve(async () => {
      ran = true;
      return new Response('no');
    });
    expect((await rawRequest(`${url}/mcp`, { method: 'TRACE', headers: auth })).status).toBe(400);
    expect(ran).toBe(false);
  });

  it('writes a prepared body at once, with the headers the chain added', async () => {
    const { url } = await serve(async () =>
      preparedResponse('{"answer":42}', { status: 201, headers: { 'content-type': 'application/json' } }),
    );
    const response = await fetch(`${url}/mcp`, { method: 'POST', headers: auth, body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-length')).toBe('13');
    expect(await response.text()).toBe('{"answer":42}');
    const head = await fetch(`${url}/mcp`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(201);
    expect(await head.text()).toBe('');
  });

  it('streams an SSE body as it is produced', async () => {
    const second = deferred();
    const { url } = await serve(async () => {
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode('data: one\n\n'));
          await second.promise;
          controller.enqueue(encoder.encode('data: two\n\n'));
          controller.close();
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    });
    const response = await fetch(`${url}/mcp`, { headers: auth });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The first event arrives while the handler still holds back the second.
    expect(decoder.decode((await reader.read()).value)).toBe('data: one\n\n');
    second.resolve();
    let rest = '';
    for (let i = 0; i < 10; i++) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest).toBe('data: two\n\n');
  });

  it('aborts the request signal when the client goes away mid-stream', async () => {
    const aborted = deferred<unknown>();
    const { url } = await serve(async (ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason), { once: true });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('data: hello\n\n'));
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    });
    const client = new AbortController();
    const response = await fetch(`${url}/mcp`, { headers: auth, signal: client.signal });
    await response.body!.getReader().read();
    client.abort();
    expect(await aborted.promise).toBeInstanceOf(Error);
  });

  it('refuses oversize uploads, with and without a length, and closes the connection', async () => {
    const { url } = await serve(async () => new Response('handler reached'));
    const declared = await rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'content-length': '4096' },
      chunks: [Buffer.alloc(4096, 'x')],
    });
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe('close');
    expect(JSON.parse(declared.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    const chunked = await rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      chunks: [Buffer.alloc(700, 'x'), Buffer.alloc(700, 'y')],
    });
    expect(chunked.status).toBe(413);
    const fine = await rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: auth,
      chunks: [Buffer.alloc(1000, 'z')],
    });
    expect(fine.status).toBe(200);
    expect(fine.body).toBe('handler reached');
  });

  it('refuses a rebound Host header', async () => {
    const { url, port } = await serve(async () => new Response('ok'));
    const rebound = await rawRequest(`${url}/mcp`, {
      headers: { ...auth, host: `attacker.example:${port}` },
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/attacker\.example/);
    expect((await rawRequest(`${url}/mcp`, { headers: { ...auth, host: `localhost:${port}` } })).status).toBe(
      200,
    );
  });

  it('answers 400 to what Node accepts but fetch cannot represent', async () => {
    const { url } = await serve(async () => new Response('ok'));
    expect((await rawRequest(`${url}/mcp`, { method: 'TRACE', headers: auth })).status).toBe(400);
    expect((await rawRequest(`${url}/mcp`, { headers: { ...auth, host: 'a:b:c' } })).status).toBe(400);
  });

  it('close() ends open streams as well as idle connections', async () => {
    const started = deferred();
    const gone = deferred();
    const running = await serve(async (ctx) => {
      ctx.signal.addEventListener('abort', () => gone.resolve(), { once: true });
      started.resolve();
      return new Response(new ReadableStream<Uint8Array>({ start() {} }), {
        headers: { 'content-type': 'text/event-stream' },
      });
    });
    const response = await fetch(`${running.url}/mcp`, { headers: auth });
    await started.promise;
    const reading = response
      .body!.getReader()
      .read()
      .catch((error: unknown) => error);
    await running.close();
    listener = undefined;
    await gone.promise;
    const outcome = await reading;
    expect(outcome instanceof Error || (outcome as { done: boolean }).done).toBe(true);
  });
});
