import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, type Migration, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Database,
  isPostgresUrl,
  MIGRATIONS,
  migrateToLatest,
  openPostgresStore,
  openStore,
  redactDatabaseUrl,
  type Store,
} from '../../src/storage/index.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';
import { rejection } from '../helpers/rejection.js';
import { eventually } from '../helpers/wait.js';
import { describeSharedStoreContract, describeStoreContract } from './store-contract.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgresServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Runs `fn` on a bare `pg` connection to `url`, outside any store. */
async function raw<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A Kysely instance of its own on `url`, for driving the migration runner directly. */
function kysely(url: string): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
  });
}

const appliedIds = (url: string) =>
  raw(url, async (c) =>
    (await c.query('select id from switchboard_migration order by id')).rows.map((r) => r.id),
  );

describeStoreContract('postgres', async () => openPostgresStore({ url: await server.createDatabase() }));
describeSharedStoreContract('postgres, two stores over one database', async () => {
  const url = await server.createDatabase();
  const a = await openPostgresStore({ url });
  return [a, await openPostgresStore({ url })] as const;
});

describe('openPostgresStore', () => {
  it('keeps data across close and reopen, and migrates once', async () => {
    const url = await server.createDatabase();
    const first = await openPostgresStore({ url });
    await first.servers.upsert({ name: 'fs', entry: { command: 'x' }, enabled: true, source: 'config' });
    const id = await first.events.append({ server: 'fs', method: 'm', receivedAt: new Date() });
    await first.close();

    const second = await openPostgresStore({ url });
    expect(await second.servers.get('fs')).toMatchObject({ entry: { command: 'x' }, enabled: true });
    expect((await second.events.takePending(5)).map((e) => e.id)).toEqual([id]);
    await second.close();
    expect(await appliedIds(url)).toEqual(Object.keys(MIGRATIONS));
    const db = kysely(url);
    try {
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('hands out ids past 32 bits as numbers', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore({ url });
    try {
      const big = 2 ** 32;
      await raw(url, async (c) => {
        for (const table of ['events', 'audit'])
          await c.query(`select setval(pg_get_serial_sequence('${table}', 'id'), ${big})`);
      });
      const id = await store.events.append({ server: 's', method: 'm', receivedAt: new Date() });
      expect(id).toBe(big + 1);
      expect((await store.events.takePending(1))[0]!.id).toBe(big + 1);
      expect(await store.events.ack([id])).toBe(1);
      expect(await store.audit.append({ action: 'a' })).toBe(big + 1);
      const page = await store.audit.query({ before: big + 2 });
      expect(page.entries.map((e) => e.id)).toEqual([big + 1]);
    } finally {
      await store.close();
    }
  });

  it('migrates a fresh database once when several stores open it at the same time', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url })));
    await Promise.all(stores.map((s) => s.close()));
    expect(await appliedIds(url)).toEqual(Object.keys(MIGRATIONS));

    const fresh = await server.createDatabase();
    const dbs = [kysely(fresh), kysely(fresh)];
    try {
      const results = await Promise.all(dbs.map((db) => migrateToLatest(db)));
      // One of them did all the work; the other found nothing left to do.
      expect(results.map((r) => r.length).sort()).toEqual([0, Object.keys(MIGRATIONS).length]);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
    }
  });

  it('holds a second migrator back until the first has committed', async () => {
    const url = await server.createDatabase();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let entered = 0;
    const gated: Migration = {
      async up(db) {
        entered += 1;
        await db.schema.createTable('gated').addColumn('x', 'text').execute();
        await gate;
      },
    };
    const migrations = { ...MIGRATIONS, '999-gated': gated };
    const [first, second] = [kysely(url), kysely(url)];
    try {
      const firstRun = migrateToLatest(first, { migrations });
      await eventually(
        () => entered,
        (n) => n === 1,
        { what: 'entered the gated migration' },
      );
      const secondRun = migrateToLatest(second, { migrations });
      // Awaited below; this only keeps a failure before then from going unhandled.
      secondRun.catch(() => undefined);
      // The second waits on the advisory lock, visible to anyone as an ungranted lock.
      await eventually(
        () =>
          raw(url, async (c) => {
            const { rows } = await c.query(
              "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
            );
            return rows[0].n as number;
          }),
        (n) => n === 1,
        { what: 'saw the second migrator wait for the lock' },
      );
      open();
      expect(await firstRun).toEqual([...Object.keys(MIGRATIONS), '999-gated']);
      expect(await secondRun).toEqual([]);
      expect(entered).toBe(1);
    } finally {
      open();
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });

  it('rolls a failed migration back entirely, DDL included', async () => {
    const url = await server.createDatabase();
    await (await openPostgresStore({ url })).close();
    const broken: Migration = {
      async up(db) {
        await db.schema.createTable('half_done').addColumn('x', 'text').execute();
        await sql`select * from no_such_table`.execute(db);
      },
    };
    const db = kysely(url);
    try {
      const error = await rejection(
        migrateToLatest(db, { migrations: { ...MIGRATIONS, '004-broken': broken } }),
      );
      expect(error.code).toBe('STORAGE_MIGRATION_FAILED');
      expect(error.message).toMatch(/004-broken/);
    } finally {
      await db.destroy();
    }
    const tables = await raw(url, async (c) =>
      (await c.query("select tablename from pg_tables where schemaname = 'public'")).rows.map(
        (r) => r.tablename,
      ),
    );
    expect(tables).not.toContain('half_done');
    expect(await appliedIds(url)).toEqual(Object.keys(MIGRATIONS));
  });

  it('refuses a database migrated by a newer Switchboard and leaves it untouched', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore({ url });
    await store.kv.set('settings', 'k', 'v');
    await store.close();
    await raw(url, (c) =>
      c.query("insert into switchboard_migration (id, applied_at) values ('999-future', 'x')"),
    );

    const error = await rejection(openPostgresStore({ url }));
    expect(error.code).toBe('STORAGE_TOO_NEW');
    expect(error.message).toMatch(/999-future/);
    expect(error.message).toMatch(/Upgrade Switchboard/);
    expect(await appliedIds(url)).toEqual([...Object.keys(MIGRATIONS), '999-future']);
    const value = await raw(url, async (c) => (await c.query("select value from kv where key = 'k'")).rows);
    expect(value).toEqual([{ value: '"v"' }]);
  });

  it('names an unreachable server without its password and says what to check', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));

    const password = 'hunter2-S3cret';
    const error = await rejection(
      openPostgresStore({ url: `postgres://sb:${password}@127.0.0.1:${port}/sb` }),
    );
    expect(error.code).toBe('STORAGE_FAILED');
    expect(error.message).toContain(`postgres://sb:***@127.0.0.1:${port}/sb`);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).toMatch(/Check that the PostgreSQL server is running/);
    const shown = { message: error.message, details: error.details, cause: String(error.cause) };
    expect(JSON.stringify(shown)).not.toContain(password);
  });

  it('names a missing database, and refuses what is not a PostgreSQL URL', async () => {
    const missing = server.url('no_such_db').replace('postgres@', 'postgres:pw-Xy9@');
    const error = await rejection(openPostgresStore({ url: missing }));
    expect(error.code).toBe('STORAGE_FAILED');
    expect(error.message).toContain('no_such_db');
    expect(error.message).not.toContain('pw-Xy9');

    for (const url of ['mysql://u:pw-Xy9@host/db', 'postgres://u:pw-Xy9@[::1/db']) {
      const refused = await rejection(openPostgresStore({ url }));
      expect(refused.code).toBe('STORAGE_FAILED');
      expect(refused.message).toMatch(/postgres:\/\/user:password@host:port\/database/);
      expect(refused.message).not.toContain('pw-Xy9');
    }
  });

  it('takes a pg pool, which close() ends', async () => {
    const pool = new pg.Pool({ connectionString: await server.createDatabase(), max: 2 });
    const store = await openPostgresStore({ pool });
    await store.kv.set('ns', 'k', 1);
    expect(await store.kv.get('ns', 'k')).toBe(1);
    await store.close();
    expect(pool.ended).toBe(true);
  });
});

describe('openStore', () => {
  it('opens PostgreSQL for a postgres URL and SQLite for a path', async () => {
    const url = (await server.createDatabase()).replace(/^postgres:/, 'postgresql:');
    const pgStore = await openStore(url);
    await pgStore.kv.set('ns', 'where', 'postgres');
    await pgStore.close();
    const rows = await raw(url, async (c) => (await c.query('select value from kv')).rows);
    expect(rows).toEqual([{ value: '"postgres"' }]);

    const dir = mkdtempSync(join(tmpdir(), 'switchboard-open-store-'));
    try {
      const file = join(dir, 'switchboard.db');
      await (await openStore(file)).close();
      expect(existsSync(file)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const refused = await rejection(openStore('mysql://u:pw-Xy9@host/db'));
    expect(refused.code).toBe('STORAGE_FAILED');
    expect(refused.message).not.toContain('pw-Xy9');
  });

  it('tells URLs from paths and redacts passwords', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('PostgreSQL://h/db')).toBe(true);
    expect(isPostgresUrl('/var/lib/switchboard/postgres.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
    expect(redactDatabaseUrl('postgres://me:p%40ss@db.example:5432/sb?sslmode=require')).toBe(
      'postgres://me:***@db.example:5432/sb?sslmode=require',
    );
    expect(redactDatabaseUrl('postgres://db.example/sb?user=me&password=s3')).toBe(
      'postgres://db.example/sb?user=me&password=***',
    );
    expect(redactDatabaseUrl('postgres://me@db.example/sb')).toBe('postgres://me@db.example/sb');
    expect(redactDatabaseUrl('postgres://me:s3@[oops/sb')).not.toContain('s3');
  });
});

describe('locks across two stores over one database', () => {
  it('a lease holds against the other store until it expires, then passes to it', async () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const clock = () => new Date(now);
    const url = await server.createDatabase();
    const a = await openPostgresStore({ url, clock });
    const b = await openPostgresStore({ url, clock });
    try {
      expect(await a.locks.tryAcquire('refresh/gh', 'a', 60_000)).toBe(true);
      now += 30_000;
      expect(await b.locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(false);
      expect(await b.locks.release('refresh/gh', 'b')).toBe(false);
      expect((await b.locks.holder('refresh/gh'))?.owner).toBe('a');
      // The holder extends its lease: 60 s from now, past the first expiry.
      expect(await a.locks.tryAcquire('refresh/gh', 'a', 60_000)).toBe(true);
      now += 45_000;
      expect(await b.locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(false);
      now += 20_000;
      expect(await b.locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(true);
      expect(await a.locks.release('refresh/gh', 'a')).toBe(false);
      expect(await a.locks.holder('refresh/gh')).toEqual({
        name: 'refresh/gh',
        owner: 'b',
        expiresAt: new Date(now + 60_000),
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('contenders on both stores never hold the lease at once', async () => {
    const url = await server.createDatabase();
    const stores: Store[] = [await openPostgresStore({ url }), await openPostgresStore({ url })];
    try {
      const perContender = 5;
      let inside = 0;
      let most = 0;
      const contend = async (store: Store, owner: string) => {
        let done = 0;
        // Bounded: a contender that never wins fails the count below instead of hanging.
        for (let round = 0; round < 3000 && done < perContender; round++) {
          if (!(await store.locks.tryAcquire('counter', owner, 60_000))) continue;
          inside += 1;
          most = Math.max(most, inside);
          // A read-modify-write that loses updates unless the lease excludes the others.
          const value = (await store.kv.get('ns', 'counter')) as number | undefined;
          await store.kv.set('ns', 'counter', (value ?? 0) + 1);
          inside -= 1;
          expect(await store.locks.release('counter', owner)).toBe(true);
          done += 1;
        }
        return done;
      };
      const contenders = stores.flatMap((store, s) => [0, 1, 2].map((i) => contend(store, `${s}-${i}`)));
      const done = await Promise.all(contenders);
      expect(done).toEqual(Array(6).fill(perContender));
      expect(most).toBe(1);
      expect(await stores[1]!.kv.get('ns', 'counter')).toBe(6 * perContender);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe('notifications between stores over one database', () => {
  it('deliver what one store sends to the other, and after a lost connection say to read again', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openPostgresStore({ url }), await openPostgresStore({ url })];
    try {
      const heard: (string | undefined)[] = [];
      const stop = await a.notifications!.listen('switchboard_test', (payload) => heard.push(payload));
      await b.notifications!.notify('switchboard_test', 'one');
      await eventually(
        () => heard,
        (h) => h.length === 1,
        { what: 'heard the first notification' },
      );
      expect(heard).toEqual(['one']);

      // The listening connection is killed (a server restart, a failover): it is made again,
      // the listener is told it may have missed something, and it hears what follows.
      const killed = await raw(url, async (c) =>
        (
          await c.query(
            `select pg_terminate_backend(pid) as done from pg_stat_activity
              where datname = current_database() and query ilike 'LISTEN%'`,
          )
        ).rows.map((r) => r.done),
      );
      expect(killed).toEqual([true]);
      await eventually(
        () => heard,
        (h) => h.includes(undefined),
        { what: 'been told to read again', timeoutMs: 15_000 },
      );
      await b.notifications!.notify('switchboard_test', 'two');
      await eventually(
        () => heard,
        (h) => h.includes('two'),
        { what: 'heard a notification after the reconnect', timeoutMs: 15_000 },
      );

      // Stopped listeners hear nothing; names that are not channels and oversized payloads are refused.
      const other: (string | undefined)[] = [];
      await a.notifications!.listen('switchboard_test', (payload) => other.push(payload));
      stop();
      await b.notifications!.notify('switchboard_test', 'three');
      // The listener still on the channel witnesses the delivery the stopped one did not get.
      await eventually(
        () => other,
        (o) => o.includes('three'),
        { what: 'heard the third notification on the other listener' },
      );
      expect(heard).not.toContain('three');
      await expect(a.notifications!.notify('Robert; drop table', 'x')).rejects.toThrow(/channel name/);
      await expect(a.notifications!.notify('switchboard_test', 'x'.repeat(8_000))).rejects.toThrow(
        /7000 bytes/,
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
