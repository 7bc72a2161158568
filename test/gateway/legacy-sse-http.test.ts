import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { SseReader } from './sse-events.js';

/**
 * The 2024-11-05 HTTP+SSE transport through real gateways on 127.0.0.1: the SDK v1
 * `SSEClientTransport` listing and calling a tool, a session bound to the principal that
 * opened it, the session cap shared with Streamable HTTP sessions, and the transport off
 * unless `gateway.legacySse` is set.
 */
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const silent = { access: () => undefined, warn: () => undefined, error: () => undefined };
let dir: string;
let host: Host;
const gateways: HttpGateway[] = [];

async function gateway(section: Record<string, unknown>): Promise<HttpGateway> {
  const auth = {
    mode: 'bearer',
    tokens: [
      { id: 'alice', sha256: hashToken(ALICE) },
      { id: 'bob', sha256: hashToken(BOB) },
    ],
  };
  const settings = resolveGateway(parseGateway({ port: 0, auth, ...section }, 'test.json'));
  const started = await startHttpGateway(host, settings, { log: silent });
  gateways.push(started);
  return started;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-legacy-sse-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] })],
  });
  await catalogHas(host, 'mcp__kitchen__echo');
});

afterAll(async () => {
  for (const g of gateways) await g.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Opens an SSE session with fetch; returns its reader and the POST URL its `endpoint` event named. */
async function openSse(g: HttpGateway, token = ALICE): Promise<{ reader: SseReader; post: URL }> {
  const response = await fetch(`${g.url}/sse`, {
    headers: { accept: 'text/event-stream', ...bearer(token) },
  });
  expect(response.status).toBe(200);
  const reader = new SseReader(response.body);
  const first = await reader.next();
  expect(first?.event).toBe('endpoint');
  return { reader, post: new URL(first!.data, g.url) };
}

function send(post: URL, message: Record<string, unknown>, token = ALICE): Promise<Response> {
  return fetch(post, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

const initialize = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
};

describe('the 2024-11-05 HTTP+SSE transport', () => {
  it('serves the SDK v1 SSE client: list and call a tool', async () => {
    const g = await gateway({ legacySse: true });
    const client = new ClientV1({ name: 'v1-sse', version: '1.0.0' });
    await client.connect(
      new SSEClientTransport(new URL(`${g.url}/sse`), { requestInit: { headers: bearer(ALICE) } }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('mcp__kitchen__echo');
      const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'over sse' } });
      expect((result.content as { text: string }[])[0]!.text).toBe('over sse');
      expect(g.sessions).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers only the principal that opened the session', async () => {
    const g = await gateway({ legacySse: true });
    const { reader, post } = await openSse(g);
    expect(post.pathname).toBe('/mcp/messages');
    const stranger = await send(post, initialize, BOB);
    expect(stranger.status).toBe(404);
    expect(await stranger.text()).toMatch(/Session not found/);
    expect((await send(post, initialize, 'no-such-token')).status).toBe(401);
    const owner = await send(post, initialize);
    expect(owner.status).toBe(202);
    expect((await reader.nextMessage()).message).toMatchObject({
      id: 1,
      result: { protocolVersion: '2024-11-05' },
    });
    await reader.cancel();
  });

  it('counts in the session cap with Streamable HTTP sessions, and closes with the gateway', async () => {
    const g = await gateway({ legacySse: true, sessions: { max: 1 } });
    const first = await openSse(g);
    const init = await fetch(g.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...bearer(ALICE),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        ...initialize,
        params: { ...initialize.params, protocolVersion: '2025-11-25' },
      }),
    });
    expect(init.status).toBe(200);
    const streamable = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    expect(await first.reader.next()).toBeUndefined(); // made room for the new session
    expect((await send(first.post, initialize)).status).toBe(404);

    const second = await openSse(g);
    const ping = await fetch(g.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': streamable,
        'mcp-protocol-version': '2025-11-25',
        ...bearer(ALICE),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(ping.status).toBe(404);
    expect(g.sessions).toBe(1);
    await g.close();
    expect(await second.reader.next()).toBeUndefined();
  });

  it('is off unless gateway.legacySse is set, and says which setting turns it on', async () => {
    const g = await gateway({});
    const sse = await fetch(`${g.url}/sse`, { headers: { accept: 'text/event-stream', ...bearer(ALICE) } });
    expect(sse.status).toBe(404);
    expect(((await sse.json()) as { error: { message: string } }).error.message).toMatch(
      /"gateway\.legacySse": true/,
    );
    expect((await send(new URL(`${g.url}/messages?sessionId=x`), initialize)).status).toBe(404);
    const on = await gateway({ legacySse: true });
    const wrongMethod = await fetch(`${on.url}/sse`, { method: 'POST', headers: bearer(ALICE), body: '{}' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });
});
