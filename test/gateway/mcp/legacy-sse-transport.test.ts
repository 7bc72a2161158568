import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LegacySseTransport } from '../../../src/gateway/mcp/legacy-sse-transport.js';
import { SseReader } from '../sse-events.js';

/**
 * The 2024-11-05 HTTP+SSE server transport on its own: the `endpoint` event first, messages as
 * `message` events, POSTs acknowledged with 202, keep-alive comments, and the session ending
 * with its stream — whoever ends it.
 */
afterEach(() => {
  vi.useRealTimers();
});

const request = new Request('http://127.0.0.1/mcp/messages?sessionId=s1', { method: 'POST' });

function transport(options: { keepAliveMs?: number; maxQueuedBytes?: number } = {}) {
  const t = new LegacySseTransport({ sessionId: 's1', postUrl: '/mcp/messages?sessionId=s1', ...options });
  const received: JSONRPCMessage[] = [];
  let closed = 0;
  t.onmessage = (message) => received.push(message);
  t.onclose = () => closed++;
  return { t, received, closed: () => closed };
}

describe('LegacySseTransport', () => {
  it('announces the POST URL, streams messages and acknowledges POSTs', async () => {
    const { t, received } = transport({ keepAliveMs: 0 });
    const response = t.open();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(response.body);
    expect(await reader.next()).toEqual({ event: 'endpoint', data: '/mcp/messages?sessionId=s1' });

    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' } as const;
    const accepted = t.receive(ping, request);
    expect(accepted.status).toBe(202);
    expect(received).toEqual([ping]);

    await t.send({ jsonrpc: '2.0', id: 7, result: {} });
    const event = await reader.next();
    expect(event?.event).toBe('message');
    expect(JSON.parse(event!.data)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(() => t.open()).toThrow(/already open/);
  });

  it('refuses what is not one JSON-RPC message', async () => {
    const { t, received } = transport({ keepAliveMs: 0 });
    t.open();
    expect(t.receive({ hello: 'world' }, request).status).toBe(400);
    expect(t.receive([{ jsonrpc: '2.0', id: 1, method: 'ping' }], request).status).toBe(400);
    expect(t.receive(undefined, request).status).toBe(400);
    expect(received).toEqual([]);
  });

  it('sends keep-alive comments while idle', async () => {
    vi.useFakeTimers();
    const { t } = transport({ keepAliveMs: 1_000 });
    const raw = t.open().body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await raw.read()).value)).toMatch(/^event: endpoint\n/);
    vi.advanceTimersByTime(1_000);
    expect(decoder.decode((await raw.read()).value)).toBe(': keepalive\n\n');
    await t.close();
    vi.advanceTimersByTime(5_000);
    expect((await raw.read()).done).toBe(true);
  });

  it('ends the session when the client leaves, and the stream when the session closes', async () => {
    const left = transport({ keepAliveMs: 0 });
    await new SseReader(left.t.open().body).cancel();
    expect(left.closed()).toBe(1);
    await expect(left.t.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).rejects.toThrow(
      /closed/,
    );
    expect(left.t.receive({ jsonrpc: '2.0', id: 1, method: 'ping' }, request).status).toBe(404);

    const closing = transport({ keepAliveMs: 0 });
    const reader = new SseReader(closing.t.open().body);
    await reader.next();
    await closing.t.close();
    await closing.t.close();
    expect(closing.closed()).toBe(1);
    expect(await reader.next()).toBeUndefined();
  });

  it('closes the session of a client that stops reading instead of buffering without end', async () => {
    const { t, closed } = transport({ keepAliveMs: 0, maxQueuedBytes: 1_000 });
    t.open(); // nobody reads
    const note = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { data: 'x'.repeat(300) },
    } as const;
    for (let i = 0; i < 10 && closed() === 0; i++) await t.send(note).catch(() => undefined);
    expect(closed()).toBe(1);
  });
});
