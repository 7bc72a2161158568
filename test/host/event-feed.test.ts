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
