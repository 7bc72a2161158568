import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';

/**
 * The both-era endpoint's 2025 sessions, driven in-process with web `Request`s: a session per
 * `initialize`, bound to its principal, closed when idle past the TTL, and at the cap the least
 * recently used makes room (a flood of `initialize` cannot grow the table).
 */
let now = 0;
let endpoint: McpEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function start(sessions: { idleTtlMs: number; max: number }): McpEndpoint {
  endpoint = new McpEndpoint({
    build: () => new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } }),
    sessions,
    now: () => now,
  });
  return endpoint;
}

const alice = { id: 'alice', allows: () => true };
const bob = { id: 'bob', allows: () => true };
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(e: McpEndpoint, principal = alice): Promise<string> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  };
  const response = await e.handle(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
    principal,
    body,
  );
  expect(response.status).toBe(200);
  return response.headers.get('mcp-session-id')!;
}

async function ping(e: McpEndpoint, session: string, principal = alice): Promise<number> {
  const body = { jsonrpc: '2.0', id: 2, method: 'ping' };
  const response = await e.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    }),
    principal,
    body,
  );
  await response.body?.cancel();
  return response.status;
}

describe('McpEndpoint sessions', () => {
  it('keeps a session for its principal only, and reaps it once idle past the TTL', async () => {
    const e = start({ idleTtlMs: 1_000, max: 10 });
    const session = await initialize(e);
    expect(e.sessionCount).toBe(1);
    expect(await ping(e, session)).toBe(200);
    expect(await ping(e, session, bob)).toBe(404);
    now += 500;
    expect(await e.reap()).toBe(0);
    now += 1_001;
    expect(await e.reap()).toBe(1);
    expect(e.sessionCount).toBe(0);
    expect(await ping(e, session)).toBe(404);
  });

  it('closes the least recently used session at the cap', async () => {
    const e = start({ idleTtlMs: 60_000, max: 2 });
    const first = await initialize(e);
    now += 1;
    const second = await initialize(e);
    now += 1;
    expect(await ping(e, first)).toBe(200); // first is now the most recent
    now += 1;
    const third = await initialize(e);
    expect(e.sessionCount).toBe(2);
    expect(await ping(e, second)).toBe(404);
    expect(await ping(e, first)).toBe(200);
    expect(await ping(e, third)).toBe(200);
  });

  it('answers a 2025 request without a session and without initialize with 400', async () => {
    const e = start({ idleTtlMs: 60_000, max: 2 });
    expect(await ping(e, 'no-such-session')).toBe(404);
    const body = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
    const response = await e.handle(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(body),
      }),
      alice,
      body,
    );
    expect(response.status).toBe(400);
  });
});
