import { afterEach, describe, expect, it } from 'vitest';
import { EventFeed } from '../../src/host/event-feed.js';
import { openSqliteStore } from '../../src/storage/database.js';
import type { Store, StoredEvent } from '../../src/storage/ports.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
});

describe('EventFeed.poll', () => {
  it('acknowledges handled batches and delivers a failed batch again', async () => {
    store = await openSqliteStore({ memory: true });
    await store.events.append({ server: 's', method: 'event/a', receivedAt: new Date() });
    const feed = new EventFeed(store.events);
    const seen: string[][] = [];
    let fail = true;
    const done = new Promise<void>((resolve) => {
      const stop = feed.poll(
        (batch: StoredEvent[]) => {
          seen.push(batch.map((e) => e.method));
          if (fail) {
            fail = false;
            throw new Error('handler crashed');
          }
          stop();
          resolve();
        },
        { intervalMs: 10 },
      );
    });
    await done;
    // Twice the same event: the failed round was not lost.
    expect(seen).toEqual([['event/a'], ['event/a']]);
    for (let i = 0; i < 100 && (await store.events.count('acked')) === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(await store.events.count('acked')).toBe(1);
    expect(await store.events.count('pending')).toBe(0);
  });
});

describe('EventFeed.store', () => {
  it('stores a burst in order, batched, with every id growing', async () => {
    store = await openSqliteStore({ memory: true });
    const feed = new EventFeed(store.events);
    for (let i = 0; i < 2000; i++)
      feed.store({ server: 's', method: 'event/n', params: { i }, receivedAt: new Date() });
    const taken = await store.events.takePending(5000);
    expect(taken.map((e) => (e.params as { i: number }).i)).toEqual([...Array(2000).keys()]);
  });

  it('drops past its bound while the store lags, then says how many with a marker event', async () => {
    store = await openSqliteStore({ memory: true });
    const real = store.events;
    // The store lags: appends wait until the test lets them through.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const lagging = {
      ...real,
      append: async (e: Parameters<typeof real.append>[0]) => {
        await gate;
        return real.append(e);
      },
    };
    const problems: string[] = [];
    const feed = new EventFeed(lagging, { maxPending: 10, onProblem: (_s, text) => problems.push(text) });
    for (let i = 0; i < 25; i++)
      feed.store({ server: 's', method: 'event/n', params: { i }, receivedAt: new Date() });
    release();
    await new Promise((r) => setTimeout(r, 20));
    feed.store({ server: 's', method: 'event/n', params: { i: 25 }, receivedAt: new Date() });
    for (let i = 0; i < 100 && (await real.count()) < 12; i++) await new Promise((r) => setTimeout(r, 5));
    const taken = await real.takePending(100);
    expect(taken.map((e) => [e.method, e.params])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ['event/n', { i }]),
      ['switchboard/events_dropped', { count: 15 }],
      ['event/n', { i: 25 }],
    ]);
    expect(problems).toEqual(['events arrive faster than they can be stored; dropping some']);
  });
});
