/**
 * The embedded backend: one SQLite file (better-sqlite3) in the data directory. WAL lets
 * readers run beside the one writer; `busy_timeout` makes a second process wait for the write
 * lock instead of failing; `synchronous=NORMAL` is durable under WAL except for the last
 * transactions on power loss, which the event log tolerates (delivery is at-least-once).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Insertable, Kysely, type SqliteDatabase, SqliteDialect } from 'kysely';
import { describeError, SwitchboardError } from '../core/errors.js';
import type { AuditRowWriter } from './audit-repository.js';
import type { Clock } from './json.js';
import { migrateToLatest } from './migrations/runner.js';
import type { Store } from './ports.js';
import type { AuditTable, Database } from './schema.js';
import { createStore } from './store.js';

/** Where the SQLite database is: a file (created with its directory) or memory (tests). */
export type SqliteLocation = { file: string } | { memory: true };

/** Options of `openSqliteStore`. */
export type OpenSqliteStoreOptions = SqliteLocation & {
  /** The source of timestamps (default: the system clock). */
  clock?: Clock;
};

/** How long a connection waits for another's write lock before failing, in ms. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) the SQLite store at `file`, or an in-memory one, and migrates it
 * to the latest schema. The directory is created owner-only (0700), the file 0600. Throws
 * `STORAGE_FAILED` when the file cannot be opened as a database, `STORAGE_TOO_NEW` when a newer
 * Switchboard wrote it, `STORAGE_MIGRATION_FAILED` when migrating fails.
 */
export async function openSqliteStore(options: OpenSqliteStoreOptions): Promise<Store> {
  const file = 'file' in options ? resolve(options.file) : undefined;
  const location = file ?? ':memory:';
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    if (file !== undefined) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // Create it owner-only before SQLite does (SQLite's -wal and -shm files copy its mode).
      closeSync(openSync(file, 'a', 0o600));
    }
    sqlite = new BetterSqlite3(location);
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = sqlite.pragma('journal_mode = WAL', { simple: true });
    if (file !== undefined && mode !== 'wal')
      throw new Error(`SQLite kept journal_mode=${String(mode)} instead of WAL`);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
  } catch (error) {
    sqlite?.close();
    throw new SwitchboardError(
      'STORAGE_FAILED',
      `Cannot open the Switchboard database ${location}: ${describeError(error)}. Check that the path ` +
        'is a Switchboard database on a local disk and that this user may read and write it.',
      { cause: error, details: { location } },
    );
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: reusingStatements(sqlite) }) });
  try {
    await migrateToLatest(db, { location, ...(options.clock && { clock: options.clock }) });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // A call's answer waits for its audit record to be committed (a WAL commit survives a kill -9
  // of this process: it is in the file once write() returns; with synchronous=NORMAL only a
  // power loss can take the last commits). A commit costs far more than a row — on a log of
  // 150,000 records about 35 µs a record alone, 8 µs each in batches of 16 (CPU, this
  // machine) — so the records of one turn of the event loop share one commit: the calls that
  // finished together are answered together, and a quiet store commits at once.
  return createStore(db, {
    ...(options.clock && { clock: options.clock }),
    auditRows: auditRowWriter(sqlite),
  });
}

/**
 * Audit batches written past Kysely, with one prepared single-row insert run per row inside a
 * transaction: Kysely builds and compiles a multi-row insert anew for every batch, which cost
 * a busy gateway about three times what SQLite itself spends per record (~27 µs against ~8 µs
 * in batches of 14). Safe beside Kysely: both use this one connection synchronously, one
 * statement at a time, and the store opens no Kysely transaction that a batch could land in.
 */
function auditRowWriter(sqlite: BetterSqlite3.Database): AuditRowWriter {
  const insert = sqlite.prepare(
    'INSERT INTO audit (at, server, actor, action, outcome, details) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return sqlite.transaction((rows: readonly Insertable<AuditTable>[]) =>
    rows.map((row) =>
      Number(
        insert.run(
          row.at,
          row.server ?? null,
          row.actor ?? null,
          row.action,
          row.outcome ?? null,
          row.details ?? null,
        ).lastInsertRowid,
      ),
    ),
  );
}

/** Prepared statements kept at most (one per distinct SQL text; batch inserts vary by row count). */
const MAX_STATEMENTS = 256;

/**
 * The database as Kysely sees it, preparing each distinct SQL text once: Kysely prepares every
 * query it runs, and a busy gateway runs the same few (audit batches, lookups) thousands of
 * times. Safe to share: Kysely runs one query at a time on its single SQLite connection, and
 * SQLite re-prepares a statement itself when the schema changes under it.
 */
function reusingStatements(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
