import type { EventId, EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { type EventStoreLimits, GatewayEventStore } from '../../../src/gateway/mcp/event-store.js';

/**
 * The event store behind resumable streams, with an injected clock: replay order and scope,
 * unknown ids, and each of its bounds (per stream by count and bytes, by age, as a whole).
 */
let now = 0;

function store(limits: Partial<EventStoreLimits> = {}): GatewayEventStore {
  now = 0;
  return new GatewayEventStore({ limits, now: () => now });
}

function note(n: number, pad = ''): JSONRPCMessage {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${n}${pad}` } };
}

async function replayed(view: EventStore, after: EventId): Promise<{ stream: string; data: unknown[] }> {
  const data: unknown[] = [];
  const stream = await view.replayEventsAfter(after, {
    send: async (_id, message) => {
      data.push((message as { params?: { data?: unknown } }).params?.data);
    },
  });
  return { stream, data };
}

async function fill(view: EventStore, stream: string, count: number, pad = ''): Promise<EventId[]> {
  const ids: EventId[] = [];
  for (let n = 1; n <= count; n++) ids.push(await view.storeEvent(stream, note(n, pad)));
  return ids;
}

describe('GatewayEventStore', () => {
  it('replays the events after an id, in order, from that id’s stream only', async () => {
    const s = store();
    const view = s.forSession('a');
    const priming = await view.storeEvent('post-1', {} as JSONRPCMessage);
    const ids = await fill(view, 'post-1', 3);
    await fill(view, '_GET_stream', 2);
    expect(await view.getStreamIdForEventId!(ids[0]!)).toBe('post-1');
    expect(await replayed(view, ids[0]!)).toEqual({ stream: 'post-1', data: ['2', '3'] });
    // The priming event is no message: resuming from it sends what followed, never `{}`.
    expect((await replayed(view, priming)).data).toEqual(['1', '2', '3']);
    expect((await replayed(view, ids[2]!)).data).toEqual([]);
  });

  it('keeps sessions apart: another session cannot find or replay an event id', async () => {
    const s = store();
    const [id] = await fill(s.forSession('a'), '_GET_stream', 2);
    const other = s.forSession('b');
    await fill(other, '_GET_stream', 1);
    expect(await other.getStreamIdForEventId!(id!)).toBeUndefined();
    const error = await replayed(other, id!).catch((e: unknown) => e);
    expect(isSwitchboardError(error, 'NOT_FOUND')).toBe(true);
  });

  it('knows nothing of ids it never issued', async () => {
    const s = store();
    const view = s.forSession('a');
    const [id] = await fill(view, 'x', 1);
    const token = id!.slice(0, id!.lastIndexOf('.'));
    for (const unknown of [
      '',
      'nodot',
      `${token}.2`,
      `${token}.0`,
      `${token}.1.5`,
      `${token}.abc`,
      'zzz.1',
    ]) {
      expect(await view.getStreamIdForEventId!(unknown)).toBeUndefined();
    }
    await expect(replayed(view, 'zzz.1')).rejects.toThrow(/expired or never existed/);
  });

  it('keeps the newest events of a stream by count, and by bytes', async () => {
    const s = store({ eventsPerStream: 3 });
    const view = s.forSession('a');
    const ids = await fill(view, 'x', 5);
    expect(s.size.events).toBe(3);
    // Resuming from an event that fell out gets what is still kept after it.
    expect((await replayed(view, ids[0]!)).data).toEqual(['3', '4', '5']);

    const b = store({ bytesPerStream: 1_000 });
    const big = b.forSession('a');
    await fill(big, 'x', 10, 'x'.repeat(200));
    expect(b.size.events).toBeGreaterThan(0);
    expect(b.size.events).toBeLessThan(10);
    expect(b.size.bytes).toBeLessThanOrEqual(1_000);
  });

  it('keeps the newest event even when it alone is over the stream bound', async () => {
    const s = store({ bytesPerStream: 100 });
    const view = s.forSession('a');
    const [first] = await fill(view, 'x', 1);
    await view.storeEvent('x', note(2, 'y'.repeat(500)));
    expect(s.size.events).toBe(1);
    expect((await replayed(view, first!)).data).toEqual([`2${'y'.repeat(500)}`]);
  });

  it('forgets events past the TTL', async () => {
    const s = store({ ttlMs: 1_000 });
    const view = s.forSession('a');
    const [old] = await fill(view, 'x', 2);
    const [stale] = await fill(view, 'y', 1);
    now += 600;
    await view.storeEvent('x', note(3));
    now += 500; // the first two of x, and all of y, are now older than the TTL
    expect(await view.getStreamIdForEventId!(stale!)).toBeUndefined();
    expect((await replayed(view, old!)).data).toEqual(['3']);
    expect(s.size).toMatchObject({ streams: 1, events: 1 });
    now += 1_000;
    s.prune();
    expect(s.size).toEqual({ streams: 0, events: 0, bytes: 0 });
  });

  it('keeps an answered stream for the shorter answered TTL, and an unanswered one for the full TTL', async () => {
    const s = store({ ttlMs: 10_000, answeredTtlMs: 1_000 });
    const view = s.forSession('a');
    const primed = await view.storeEvent('post', {} as JSONRPCMessage);
    await view.storeEvent('post', { jsonrpc: '2.0', id: 7, result: { content: [] } });
    const open = await view.storeEvent('get', note(1));
    now += 500;
    const failed = await view.storeEvent('other', {} as JSONRPCMessage);
    await view.storeEvent('other', { jsonrpc: '2.0', id: 8, error: { code: -32603, message: 'no' } });
    // Within the answered TTL the answer is still replayed from the priming event.
    now += 400;
    const answer: unknown[] = [];
    await view.replayEventsAfter(primed, { send: async (_id, message) => void answer.push(message) });
    expect(answer).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [] } }]);
    now += 200; // 'post' is answered 1.1 s ago, 'other' 0.6 s ago, 'get' never
    s.prune();
    expect(await view.getStreamIdForEventId!(primed)).toBeUndefined();
    expect(await view.getStreamIdForEventId!(failed)).toBe('other');
    expect(await view.getStreamIdForEventId!(open)).toBe('get');
    now += 500;
    s.prune();
    expect(await view.getStreamIdForEventId!(failed)).toBeUndefined();
    expect(await view.getStreamIdForEventId!(open)).toBe('get');
    expect(s.size).toMatchObject({ streams: 1, events: 1 });
  });

  it('keeps the answered streams within their own budget, earliest answered first, and unanswered ones past it', async () => {
    const s = store({ answeredBytes: 4_000, totalBytes: 1_000_000 });
    const view = s.forSession('a');
    const answer = (id: number) => ({
      jsonrpc: '2.0' as const,
      id,
      result: { content: [{ type: 'text', text: 'p'.repeat(1_000) }] },
    });
    const open = await view.storeEvent('get', note(1, 'p'.repeat(2_000)));
    const primes: EventId[] = [];
    for (let n = 1; n <= 4; n++) {
      primes.push(await view.storeEvent(`post-${n}`, {} as JSONRPCMessage));
      await view.storeEvent(`post-${n}`, answer(n));
    }
    // Four answered streams of ~1.2 kB over a 4,000-byte budget: the first is gone, long before its TTL.
    expect(await view.getStreamIdForEventId!(primes[0]!)).toBeUndefined();
    for (const [n, primed] of primes.entries())
      if (n > 0) expect(await view.getStreamIdForEventId!(primed)).toBe(`post-${n + 1}`);
    // The unanswered stream is no answer: the budget never touches it.
    expect(await view.getStreamIdForEventId!(open)).toBe('get');
    // A single answer over the whole budget is still kept: the client may be resuming for it.
    const big = await view.storeEvent('post-big', {} as JSONRPCMessage);
    await view.storeEvent('post-big', {
      jsonrpc: '2.0',
      id: 9,
      result: { content: [{ type: 'text', text: 'p'.repeat(5_000) }] },
    });
    expect(await view.getStreamIdForEventId!(big)).toBe('post-big');
    expect(await view.getStreamIdForEventId!(primes[3]!)).toBeUndefined();
    const replay: unknown[] = [];
    await view.replayEventsAfter(big, { send: async (_id, message) => void replay.push(message) });
    expect(replay).toEqual([expect.objectContaining({ id: 9 })]);
  });

  it('stores a message with the text its caller encoded, replayed as that message', async () => {
    const s = store();
    const view = s.forSession('a');
    const message: JSONRPCMessage = {
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: 'é ✓ "q"' }] },
    };
    const primed = await view.storeEvent('post', {} as JSONRPCMessage);
    await view.storeEncoded('post', message, JSON.stringify(message));
    expect(s.size.bytes).toBe(2 + Buffer.byteLength(JSON.stringify(message)) + 2 * 64);
    const replay: unknown[] = [];
    await view.replayEventsAfter(primed, { send: async (_id, m) => void replay.push(m) });
    expect(replay).toEqual([message]);
  });

  it('drops the least recently written streams when the whole store is over its bound', async () => {
    const s = store({ totalBytes: 2_000 });
    const a = s.forSession('a');
    const b = s.forSession('b');
    const [first] = await fill(a, 'x', 1, 'p'.repeat(500));
    const [second] = await fill(b, 'x', 1, 'p'.repeat(500));
    now += 1;
    await a.storeEvent('y', note(1, 'p'.repeat(500)));
    expect(s.size.streams).toBe(3);
    await b.storeEvent('y', note(1, 'p'.repeat(500))); // over 2,000: a/x, the oldest, goes
    expect(s.size.bytes).toBeLessThanOrEqual(2_000);
    expect(await a.getStreamIdForEventId!(first!)).toBeUndefined();
    expect(await b.getStreamIdForEventId!(second!)).toBe('x');
  });

  it('clears a session’s streams when it closes, only those, and keeps nothing of it after', async () => {
    const s = store();
    const a = s.forSession('a');
    await fill(a, 'x', 2);
    await fill(a, 'y', 2);
    const [kept] = await fill(s.forSession('b'), 'x', 1);
    s.clear('a');
    expect(s.size.streams).toBe(1);
    expect(await s.forSession('b').getStreamIdForEventId!(kept!)).toBe('x');
    // An answer sent after the session closed is not kept, and its id leads nowhere.
    const late = await a.storeEvent('x', note(9));
    expect(s.size.streams).toBe(1);
    expect(await a.getStreamIdForEventId!(late)).toBeUndefined();
    s.clear('b');
    s.clear('never-seen');
    expect(s.size).toEqual({ streams: 0, events: 0, bytes: 0 });
  });

  it('also replays what is stored while a replay is sending', async () => {
    const s = store();
    const view = s.forSession('a');
    const [first] = await fill(view, 'x', 2);
    const data: unknown[] = [];
    let added = false;
    await view.replayEventsAfter(first!, {
      send: async (_id, message) => {
        data.push((message as { params?: { data?: unknown } }).params?.data);
        if (!added) {
          added = true;
          await view.storeEvent('x', note(3));
        }
      },
    });
    expect(data).toEqual(['2', '3']);
  });
});
