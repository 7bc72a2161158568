import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';
import { SseReader } from '../sse-events.js';

/**
 * The both-era endpoint's 2025 sessions, driven in-process with web `Request`s: a session per
 * `initialize`, bound to its principal, closed when idle past the TTL, and at the cap the least
 * recently used makes room (a flood of `initialize` cannot grow the table); their streams
 * primed and resumable; and 2024-11-05 SSE sessions in the same table.
 */
let now = 0;
let endpoint: McpEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function start(
  sessions: { idleTtlMs: number; max: number },
  setup: (server: Server) => void = () => undefined,
): McpEndpoint {
  endpoint = new McpEndpoint({
    build: () => {
      const server = new Server(
        { name: 't', version: '1' },
        {
          capabilities: {
            tools: { listChanged: true },
            prompts: { listChanged: true },
            resources: { listChanged: true },
          },
        },
      );
      setup(server);
      return server;
    },
    sessions,
    now: () => now,
  });
  return endpoint;
}

const alice = { id: 'alice', allows: () => true };
const bob = { id: 'bob', allows: () => true };
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const initializeBody = (protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

async function initialize(e: McpEndpoint, principal = alice, protocolVersion?: string): Promise<string> {
  const response = await initializing(e, principal, protocolVersion);
  await response.body?.cancel();
  return response.headers.get('mcp-session-id')!;
}

async function initializing(e: McpEndpoint, principal = alice, protocolVersion?: string): Promise<Response> {
  const body = initializeBody(protocolVersion);
  const response = await e.handle(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
    principal,
    body,
  );
  expect(response.status).toBe(200);
  return response;
}

async function pinging(e: McpEndpoint, session: string, principal = alice, version = '2025-11-25') {
  const body = { jsonrpc: '2.0', id: 2, method: 'ping' };
  return e.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': version },
      body: JSON.stringify(body),
    }),
    principal,
    body,
  );
}

async function ping(e: McpEndpoint, session: string, principal = alice): Promise<number> {
  const response = await pinging(e, session, principal);
  await response.body?.cancel();
  return response.status;
}

function listen(e: McpEndpoint, session: string, lastEventId?: string): Promise<Response> {
  return e.handle(
    new Request('http://127.0.0.1/mcp', {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
        ...(lastEventId !== undefined && { 'last-event-id': lastEventId }),
      },
    }),
    alice,
  );
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

describe('McpEndpoint resumable streams', () => {
  it('opens each POST stream with a priming event that carries an id and retry', async () => {
    const e = start({ idleTtlMs: 60_000, max: 10 });
    const response = await initializing(e);
    const session = response.headers.get('mcp-session-id')!;
    const init = new SseReader(response.body);
    const priming = await init.next();
    expect(priming).toMatchObject({ data: '' });
    expect(priming?.id).toMatch(/\S/);
    expect(priming?.retry).toBe(1_000);
    expect((await init.nextMessage()).message).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-11-25' },
    });
    // A request naming an older version than the session negotiated is still primed.
    const older = new SseReader((await pinging(e, session, alice, '2025-03-26')).body);
    expect(await older.next()).toMatchObject({ data: '', retry: 1_000 });
    expect((await older.nextMessage()).message).toMatchObject({ id: 2, result: {} });
  });

  it('does not prime the streams of a session negotiated before 2025-11-25', async () => {
    const e = start({ idleTtlMs: 60_000, max: 10 });
    const session = await initialize(e, alice, '2025-06-18');
    // Not even when a request claims a later version: the session's own version decides.
    for (const version of ['2025-06-18', '2025-11-25']) {
      const reader = new SseReader((await pinging(e, session, alice, version)).body);
      const first = await reader.next();
      expect(first?.data).not.toBe('');
      expect(JSON.parse(first!.data)).toMatchObject({ id: 2, result: {} });
    }
  });

  it('replays what a dropped GET stream missed when the client comes back with Last-Event-ID', async () => {
    const e = start({ idleTtlMs: 60_000, max: 10 });
    const session = await initialize(e);
    const first = new SseReader((await listen(e, session)).body);
    e.listsChanged();
    const seen = [await first.nextMessage(), await first.nextMessage(), await first.nextMessage()];
    expect(seen.map((s) => s.message.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    await first.cancel();
    e.listsChanged(); // sent while nobody listens: kept for the resume
    const resumed = await listen(e, session, seen[2]!.id);
    expect(resumed.status).toBe(200);
    const again = new SseReader(resumed.body);
    const missed = [await again.nextMessage(), await again.nextMessage(), await again.nextMessage()];
    expect(missed.map((m) => m.message.method)).toEqual(seen.map((s) => s.message.method));
    for (const m of missed) expect(seen.map((s) => s.id)).not.toContain(m.id);
    // The resumed stream is the session's stream from now on.
    e.listsChanged();
    expect((await again.nextMessage()).message.method).toBe('notifications/tools/list_changed');
    await again.cancel();
    // An id this session never issued is refused rather than silently replaying nothing.
    expect((await listen(e, session, 'nope.1')).status).toBe(400);
  });

  it('delivers the answer of a call whose POST stream the server closed, on the resumed stream', async () => {
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    const e = start({ idleTtlMs: 60_000, max: 10 }, (server) => {
      server.setRequestHandler('tools/call', async (_request, ctx) => {
        ctx.http?.closeSSE?.(); // SEP-1699: the client polls instead of holding the stream open
        await released;
        return { content: [{ type: 'text', text: 'done' }] };
      });
    });
    const session = await initialize(e);
    const body = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } };
    const call = await e.handle(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(body),
      }),
      alice,
      body,
    );
    const post = new SseReader(call.body);
    const priming = await post.next();
    expect(priming).toMatchObject({ data: '', retry: 1_000 });
    expect(await post.next()).toBeUndefined(); // closed before the answer
    release();
    const resumed = new SseReader((await listen(e, session, priming!.id)).body);
    expect((await resumed.nextMessage()).message).toMatchObject({
      id: 5,
      result: { content: [{ text: 'done' }] },
    });
  });
});

describe('McpEndpoint 2024-11-05 SSE sessions', () => {
  async function openSse(e: McpEndpoint, principal = alice) {
    const reader = new SseReader((await e.openSse(principal, '/mcp/messages')).body);
    const endpointEvent = await reader.next();
    expect(endpointEvent?.event).toBe('endpoint');
    const url = new URL(endpointEvent!.data, 'http://127.0.0.1');
    expect(url.pathname).toBe('/mcp/messages');
    return { reader, session: url.searchParams.get('sessionId')! };
  }
  const post = (e: McpEndpoint, session: string | null, body: unknown, principal = alice) =>
    e.postSse(session, principal, body, new Request('http://127.0.0.1/mcp/messages', { method: 'POST' }));

  it('answers on the stream, for the principal that opened it only', async () => {
    const e = start({ idleTtlMs: 60_000, max: 10 });
    const { reader, session } = await openSse(e);
    expect((await post(e, session, initializeBody(), bob)).status).toBe(404);
    expect((await post(e, 'no-such-session', initializeBody())).status).toBe(404);
    expect((await post(e, null, initializeBody())).status).toBe(404);
    expect((await post(e, session, initializeBody())).status).toBe(202);
    expect((await reader.nextMessage()).message).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-11-25' },
    });
    e.listsChanged();
    expect((await reader.nextMessage()).message.method).toBe('notifications/tools/list_changed');
  });

  it('shares the cap with 2025 sessions, is reaped when idle, and ends with its stream', async () => {
    const e = start({ idleTtlMs: 1_000, max: 1 });
    const sse = await openSse(e);
    const streamable = await initialize(e); // the cap: the SSE session makes room
    expect(await sse.reader.next()).toBeUndefined();
    expect((await post(e, sse.session, initializeBody())).status).toBe(404);
    const second = await openSse(e);
    expect(await ping(e, streamable)).toBe(404);
    now += 1_001;
    expect(await e.reap()).toBe(1);
    expect(await second.reader.next()).toBeUndefined();
    const third = await openSse(e);
    expect(e.sessionCount).toBe(1);
    await third.reader.cancel(); // the client left
    expect(e.sessionCount).toBe(0);
  });
});
