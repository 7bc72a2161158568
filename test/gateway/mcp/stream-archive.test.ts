import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayEventStore, type SessionEventStore } from '../../../src/gateway/mcp/event-store.js';
import { REPLICA_LOST_CODE } from '../../../src/gateway/mcp/placed-sessions.js';
import { streamRequests } from '../../../src/gateway/mcp/stream-archive.js';
import { StoreStreamArchive } from '../../../src/gateway/replicas/store-stream-archive.js';
import { openSqliteStore } from '../../../src/storage/database.js';
import type { Store } from '../../../src/storage/ports.js';

/**
 * The event store with an archive (docs/replicas.md), over a real store: what one replica's
 * sessions write there, another replica — the one that took a session over — replays, with a
 * retryable error for each request the dead replica never answered; bounded per stream and
 * in size, dropped with the session.
 */
const opened: { store: Store; archives: StoreStreamArchive[] }[] = [];

afterEach(async () => {
  for (const { store, archives } of opened.splice(0)) {
    await Promise.all(archives.map((a) => a.close()));
    await store.close();
  }
});

async function twoReplicas(limits: { eventsPerStream?: number; maxEventBytes?: number } = {}) {
  const store = await openSqliteStore({ memory: true });
  const errors: Error[] = [];
  const archive = () =>
    new StoreStreamArchive({
      repository: store.streamEvents,
      eventsPerStream: limits.eventsPerStream ?? 1_000,
      ttlMs: 300_000,
      maxEventBytes: limits.maxEventBytes ?? 1024 * 1024,
      onerror: (error) => errors.push(error),
    });
  const archives = [archive(), archive()];
  opened.push({ store, archives });
  const [owner, heir] = archives.map((a) => new GatewayEventStore({ archive: a })) as [
    GatewayEventStore,
    GatewayEventStore,
  ];
  return { store, owner, heir, errors };
}

const answer = (id: number, text: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }) as JSONRPCMessage;
const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});

/** What a replay sends, as (event id, message) pairs. */
async function replayed(events: SessionEventStore, from: string) {
  const sent: { id: string; message: JSONRPCMessage }[] = [];
  const streamId = await events.replayEventsAfter(from, {
    send: async (id, message) => {
      sent.push({ id, message });
    },
  });
  return { streamId, sent };
}

describe('the event store with an archive', () => {
  it("replays a dead replica's stream on the heir: its answers, and an error for what it never answered", async () => {
    const { owner, heir } = await twoReplicas();
    const events = owner.forSession('s1');
    // A POST carrying requests 1 and 2 opens a stream with a priming event.
    const priming = await streamRequests.run([1, 2], () => events.storeEvent('post-1', {} as JSONRPCMessage));
    await events.storeEvent('post-1', progress(1));
    await events.storeEvent('post-1', answer(1, 'one'));

    const onHeir = heir.forSession('s1');
    expect(await onHeir.getStreamIdForEventId!(priming)).toBe('post-1');
    const first = await replayed(onHeir, priming);
    expect(first.streamId).toBe('post-1');
    expect(first.sent.map((e) => e.message)).toEqual([
      progress(1),
      answer(1, 'one'),
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: REPLICA_LOST_CODE }) }),
    ]);
    // The error is kept with the stream: a client that resumes after it gets nothing more,
    // one that resumes before it gets it again, and never a second one.
    const last = first.sent.at(-1)!.id;
    expect((await replayed(onHeir, last)).sent).toEqual([]);
    const again = await replayed(onHeir, first.sent[0]!.id);
    expect(again.sent.map((e) => e.message)).toEqual(first.sent.slice(1).map((e) => e.message));
  });

  it("keeps a session's events to itself, and refuses ids nobody issued", async () => {
    const { owner, heir } = await twoReplicas();
    const priming = await owner.forSession('s1').storeEvent('post-1', {} as JSONRPCMessage);
    const other = heir.forSession('s2');
    expect(await other.getStreamIdForEventId!(priming)).toBeUndefined();
    await expect(replayed(other, priming)).rejects.toThrow(/No stream of this session/);
    await expect(replayed(heir.forSession('s1'), 'nobody.1')).rejects.toThrow(/No stream of this session/);
    await expect(replayed(heir.forSession('s1'), 'no dot at all')).rejects.toThrow(
      /No stream of this session/,
    );
  });

  it('replays its own streams from memory, and sends no error for what it still serves', async () => {
    const { owner } = await twoReplicas();
    const events = owner.forSession('s1');
    const priming = await streamRequests.run([5], () => events.storeEvent('post-1', {} as JSONRPCMessage));
    await events.storeEvent('post-1', progress(1));
    expect((await replayed(events, priming)).sent.map((e) => e.message)).toEqual([progress(1)]);
  });

  it('archives no event over its size bound, trims long streams, and drops a session with it', async () => {
    const { store, owner, heir, errors } = await twoReplicas({ eventsPerStream: 100, maxEventBytes: 2_000 });
    const events = owner.forSession('s1');
    const priming = await events.storeEvent('get', {} as JSONRPCMessage);
    for (let n = 1; n <= 250; n++) await events.storeEvent('get', progress(n));
    await events.storeEvent('get', answer(9, 'x'.repeat(5_000)));
    const kept = await store.streamEvents.after(priming.slice(0, priming.lastIndexOf('.')), 0, 1_000);
    // The head stays; of the rest at least the newest 100, fewer than all 250.
    expect(kept[0]?.seq).toBe(1);
    expect(kept.length).toBeGreaterThanOrEqual(101);
    expect(kept.length).toBeLessThan(251);
    expect(kept.at(-1)?.message).toContain('"progress":250');
    const onHeir = await replayed(heir.forSession('s1'), priming);
    expect(onHeir.sent.at(-1)?.message).toEqual(progress(250));

    owner.clear('s1');
    await expect
      .poll(() => store.streamEvents.head(priming.slice(0, priming.lastIndexOf('.'))))
      .toBeUndefined();
    // A replica that stops keeps its sessions' events for whoever takes them over.
    const priming2 = await owner.forSession('s2').storeEvent('get', {} as JSONRPCMessage);
    owner.clear('s2', { archived: false });
    expect(await heir.forSession('s2').getStreamIdForEventId!(priming2)).toBe('get');
    expect(errors).toEqual([]);
  });
});
