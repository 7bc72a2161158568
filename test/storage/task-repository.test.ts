import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, NewTask, Store } from '../../src/storage/index.js';
import { openPostgresStore, openSqliteStore } from '../../src/storage/index.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';

/**
 * The tasks table on both backends, through the same contract: what a gateway stores of a
 * task comes back as stored (from another store on the same database too), a finished task
 * never changes again, a worker's change needs its ownership, leases are renewed per owner,
 * and a task past its ttl reads as gone and is pruned.
 */
const root = mkdtempSync(join(tmpdir(), 'switchboard-tasks-'));
let pg: PostgresServer;
beforeAll(async () => {
  pg = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-03-01T10:00:00.000Z')): Clock & { advance(ms: number): void } {
  let now = start;
  const clock = () => new Date(now);
  return Object.assign(clock, {
    advance: (ms: number) => {
      now += ms;
    },
  });
}

const task = (overrides: Partial<NewTask> = {}): NewTask => ({
  id: 'sbt-1',
  principal: 'alice',
  server: 'kitchen',
  tool: 'task_sleep',
  kind: 'run',
  status: 'working',
  owner: 'host/1/a',
  leaseMs: 30_000,
  ttlMs: 60_000,
  ...overrides,
});

type Open = (clock: Clock) => Promise<{ a: Store; b: Store }>;
let counter = 0;
const backends: [string, Open][] = [
  [
    'sqlite file, two connections',
    async (clock) => {
      counter += 1;
      const file = join(root, `db-${counter}`, 'switchboard.db');
      const a = await openSqliteStore({ file, clock });
      return { a, b: await openSqliteStore({ file, clock }) };
    },
  ],
  [
    'postgres, two pools',
    async (clock) => {
      const url = await pg.createDatabase();
      const a = await openPostgresStore({ url, clock });
      return { a, b: await openPostgresStore({ url, clock }) };
    },
  ],
];

for (const [label, open] of backends) {
  describe(`tasks: ${label}`, () => {
    const stores: Store[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
    });
    const fresh = async (clock: Clock) => {
      const pair = await open(clock);
      stores.push(pair.a, pair.b);
      return pair;
    };

    it('stores a task and reads it back from the other store, fields as given', async () => {
      const clock = manualClock();
      const { a, b } = await fresh(clock);
      const created = await a.tasks.create(
        task({
          statusMessage: 'started',
          outcome: { inputRequests: { q: { method: 'elicitation/create' } } },
        }),
      );
      expect(created).toMatchObject({ id: 'sbt-1', kind: 'run', status: 'working', owner: 'host/1/a' });
      const read = await b.tasks.get('sbt-1');
      expect(read).toEqual(created);
      expect(read?.createdAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
      expect(read?.expiresAt.toISOString()).toBe('2026-03-01T10:01:00.000Z');
      expect(read?.leaseUntil?.toISOString()).toBe('2026-03-01T10:00:30.000Z');
      expect(read?.outcome).toEqual({ inputRequests: { q: { method: 'elicitation/create' } } });

      await a.tasks.create(
        task({ id: 'sbt-2', kind: 'relayed', upstreamId: 'up-7', owner: undefined, leaseMs: undefined }),
      );
      const relayed = await b.tasks.get('sbt-2');
      expect(relayed).toMatchObject({ kind: 'relayed', upstreamId: 'up-7' });
      expect(relayed?.owner).toBeUndefined();
      expect(relayed?.leaseUntil).toBeUndefined();
      expect(await b.tasks.get('nope')).toBeUndefined();
    });

    it('changes an unfinished task; a finished one stays as it finished', async () => {
      const clock = manualClock();
      const { a, b } = await fresh(clock);
      await a.tasks.create(task());
      clock.advance(1_000);
      expect(
        await b.tasks.update('sbt-1', { status: 'input_required', outcome: { inputRequests: { k: {} } } }),
      ).toBe(true);
      const done = {
        status: 'completed' as const,
        statusMessage: null,
        outcome: { result: { content: [] } },
      };
      expect(await a.tasks.update('sbt-1', done)).toBe(true);
      const finished = await b.tasks.get('sbt-1');
      expect(finished).toMatchObject({ status: 'completed', outcome: { result: { content: [] } } });
      expect(finished?.statusMessage).toBeUndefined();
      expect(finished?.updatedAt.toISOString()).toBe('2026-03-01T10:00:01.000Z');
      // A cancel that comes after the result, or a late worker: nothing changes.
      expect(await b.tasks.update('sbt-1', { status: 'cancelled' })).toBe(false);
      expect(
        await a.tasks.update('sbt-1', { status: 'failed', outcome: { error: { code: 1, message: 'x' } } }),
      ).toBe(false);
      expect((await a.tasks.get('sbt-1'))?.status).toBe('completed');
      expect(await a.tasks.update('unknown', { status: 'cancelled' })).toBe(false);
    });

    it("changes a worker's task only for its owner when the owner is named", async () => {
      const { a, b } = await fresh(manualClock());
      await a.tasks.create(task());
      expect(await b.tasks.update('sbt-1', { status: 'failed' }, { owner: 'host/2/b' })).toBe(false);
      expect((await a.tasks.get('sbt-1'))?.status).toBe('working');
      expect(await b.tasks.update('sbt-1', { status: 'failed' }, { owner: 'host/1/a' })).toBe(true);
    });

    it("renews the leases of an owner's unfinished tasks, and no one else's", async () => {
      const clock = manualClock();
      const { a, b } = await fresh(clock);
      await a.tasks.create(task({ id: 't1' }));
      await a.tasks.create(task({ id: 't2' }));
      await a.tasks.create(task({ id: 't3', owner: 'host/2/b' }));
      await a.tasks.update('t2', { status: 'completed' });
      clock.advance(20_000);
      expect(await b.tasks.renew('host/1/a', 30_000)).toBe(1);
      expect((await a.tasks.get('t1'))?.leaseUntil?.toISOString()).toBe('2026-03-01T10:00:50.000Z');
      expect((await a.tasks.get('t2'))?.leaseUntil?.toISOString()).toBe('2026-03-01T10:00:30.000Z');
      expect((await a.tasks.get('t3'))?.leaseUntil?.toISOString()).toBe('2026-03-01T10:00:30.000Z');
    });

    it('reads a task past its ttl as gone, refuses to change it, and prunes it', async () => {
      const clock = manualClock();
      const { a, b } = await fresh(clock);
      await a.tasks.create(task({ id: 'short', ttlMs: 1_000 }));
      await a.tasks.create(task({ id: 'long', ttlMs: 10_000 }));
      clock.advance(999);
      expect(await b.tasks.get('short')).toBeDefined();
      expect(await b.tasks.prune()).toBe(0);
      clock.advance(1);
      expect(await b.tasks.get('short')).toBeUndefined();
      expect(await b.tasks.update('short', { status: 'completed' })).toBe(false);
      expect(await a.tasks.prune()).toBe(1);
      expect(await a.tasks.get('long')).toBeDefined();
      clock.advance(10_000);
      expect(await b.tasks.prune()).toBe(1);
      expect(await a.tasks.prune()).toBe(0);
    });

    it('refuses a second task under an id that is taken', async () => {
      const { a, b } = await fresh(manualClock());
      await a.tasks.create(task());
      await expect(b.tasks.create(task({ principal: 'mallory' }))).rejects.toThrow();
      expect((await a.tasks.get('sbt-1'))?.principal).toBe('alice');
    });
  });
}
