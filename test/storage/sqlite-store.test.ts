import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../src/core/errors.js';
import { type Database, MIGRATIONS, migrateToLatest, openSqliteStore } from '../../src/storage/index.js';
import { rejectionOf } from '../helpers/rejection.js';
import { describeSharedStoreContract, describeStoreContract } from './store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-storage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
/** A path for a new database file in its own, not yet existing, directory. */
function newFile(): string {
  counter += 1;
  return join(root, `data-${counter}`, 'switchboard.db');
}

/** Reads `file` with a bare better-sqlite3 connection, outside the store. */
function raw<T>(file: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(file);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describeStoreContract('sqlite file', () => openSqliteStore({ file: newFile() }));
describeStoreContract('sqlite memory', () => openSqliteStore({ memory: true }));
describeSharedStoreContract('sqlite file, two connections', async () => {
  const file = newFile();
  const a = await openSqliteStore({ file });
  return [a, await openSqliteStore({ file })] as const;
});

describe('openSqliteStore', () => {
  it('creates an owner-only directory and file, in WAL mode', async () => {
    const file = newFile();
    const store = await openSqliteStore({ file });
    await store.close();
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(raw(file, (db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
  });

  it('keeps data across close and reopen', async () => {
    const file = newFile();
    const first = await openSqliteStore({ file });
    await first.servers.upsert({ name: 'fs', entry: { command: 'x' }, enabled: true, source: 'config' });
    await first.kv.set('era', 'fs', 'modern');
    const id = await first.events.append({ server: 'fs', method: 'm', receivedAt: new Date() });
    await first.close();

    const second = await openSqliteStore({ file });
    expect(await second.servers.get('fs')).toMatchObject({ entry: { command: 'x' }, enabled: true });
    expect(await second.kv.get('era', 'fs')).toBe('modern');
    expect((await second.events.takePending(5)).map((e) => e.id)).toEqual([id]);
    await second.close();
  });

  it('writes audit records still in a batch before it closes', async () => {
    const file = newFile();
    const store = await openSqliteStore({ file });
    const appended = [1, 2, 3].map((n) => store.audit.append({ action: 'tool_call', actor: `a${n}` }));
    await store.close();
    expect(await Promise.all(appended)).toHaveLength(3);
    const again = await openSqliteStore({ file });
    expect((await again.audit.query()).entries.map((e) => e.actor).sort()).toEqual(['a1', 'a2', 'a3']);
    await again.close();
  });

  it('runs each migration once, however often it is opened', async () => {
    const file = newFile();
    for (let i = 0; i < 3; i++) await (await openSqliteStore({ file })).close();
    const applied = raw(file, (db) => db.prepare('select id from switchboard_migration').pluck().all());
    expect(applied).toEqual(Object.keys(MIGRATIONS));

    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    try {
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a database from a newer Switchboard and leaves it untouched', async () => {
    const file = newFile();
    const store = await openSqliteStore({ file });
    await store.kv.set('settings', 'k', 'v');
    await store.close();
    raw(file, (db) =>
      db.prepare('insert into switchboard_migration (id, applied_at) values (?, ?)').run('999-future', 'x'),
    );
    const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = digest();

    const error = await rejectionOf(openSqliteStore({ file }));
    expect(isSwitchboardError(error, 'STORAGE_TOO_NEW')).toBe(true);
    expect((error as Error).message).toMatch(/999-future/);
    expect((error as Error).message).toMatch(/Upgrade Switchboard/);
    expect(digest()).toBe(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(raw(file, (db) => db.prepare("select value from kv where key = 'k'").pluck().get())).toBe('"v"');
  });

  it('rolls a failed migration back entirely', async () => {
    const file = newFile();
    await (await openSqliteStore({ file })).close();
    const broken: Migration = {
      async up(db) {
        await db.schema.createTable('half_done').addColumn('x', 'text').execute();
        await sql`select * from no_such_table`.execute(db);
      },
    };
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    try {
      const error = await rejectionOf(
        migrateToLatest(db, { migrations: { ...MIGRATIONS, '002-broken': broken } }),
      );
      expect(isSwitchboardError(error, 'STORAGE_MIGRATION_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/002-broken/);
    } finally {
      await db.destroy();
    }
    const tables = raw(file, (d) =>
      d.prepare("select name from sqlite_master where type = 'table'").pluck().all(),
    );
    expect(tables).not.toContain('half_done');
    expect(raw(file, (d) => d.prepare('select id from switchboard_migration').pluck().all())).toEqual(
      Object.keys(MIGRATIONS),
    );
  });

  it('refuses a file that is not a database', async () => {
    const file = join(root, 'not-a-db.txt');
    writeFileSync(file, 'hello, this is not SQLite'.repeat(100));
    const error = await rejectionOf(openSqliteStore({ file }));
    expect(isSwitchboardError(error, 'STORAGE_FAILED')).toBe(true);
    expect((error as Error).message).toContain(file);
  });
});
