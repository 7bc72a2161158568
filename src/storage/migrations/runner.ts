/**
 * The migration runner: applies the pending migrations, in id order, in one transaction that
 * holds the database's write lock, so two Switchboards starting together migrate once.
 * Forward-only: there is no `down`. A database that has a migration this code does not know
 * was written by a newer Switchboard; it is refused before anything is written to it.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { dialectOf } from '../dialect.js';
import type { Clock } from '../json.js';
import type { Database } from '../schema.js';
import { MIGRATIONS } from './index.js';

/** Options of `migrateToLatest`. */
export interface MigrateOptions {
  /** The migrations to apply (default: `MIGRATIONS`); tests pass others. */
  migrations?: Readonly<Record<string, Migration>>;
  /** Where the database is, for messages (a file path, a redacted URL). */
  location?: string;
  clock?: Clock;
}

/** Arbitrary, stable key of the PostgreSQL advisory lock that serialises migrations. */
const PG_MIGRATION_LOCK = 0x5357_4d47;

/**
 * Brings `db` to the latest schema and returns the ids it applied (empty when up to date).
 * Throws `STORAGE_TOO_NEW` for a database from a newer Switchboard and
 * `STORAGE_MIGRATION_FAILED` when a migration fails; either way nothing is changed.
 */
export async function migrateToLatest(db: Kysely<Database>, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  const known = Object.keys(migrations).sort();
  const where = options.location ?? 'the database';
  const now = options.clock ?? (() => new Date());
  const dialect = dialectOf(db as Kysely<unknown>);

  return db.connection().execute(async (conn) => {
    // SQLite: IMMEDIATE takes the write lock now (waiting up to busy_timeout) rather than
    // failing on a read-to-write upgrade later. PostgreSQL: an advisory lock for this txn.
    let current = '(taking the migration lock)';
    let begun = false;
    try {
      await (dialect === 'sqlite' ? sql`begin immediate` : sql`begin`).execute(conn);
      begun = true;
      current = '(reading applied migrations)';
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${PG_MIGRATION_LOCK})`.execute(conn);
      await conn.schema
        .createTable('switchboard_migration')
        .ifNotExists()
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('applied_at', 'text', (col) => col.notNull())
        .execute();
      const applied = new Set(
        (await conn.selectFrom('switchboard_migration').select('id').execute()).map((row) => row.id),
      );
      const unknown = [...applied].filter((id) => !(id in migrations)).sort();
      if (unknown.length > 0)
        throw new SwitchboardError(
          'STORAGE_TOO_NEW',
          `${where} was written by a newer Switchboard: it has migration(s) ${unknown.join(', ')}, ` +
            'which this version does not know. Upgrade Switchboard to open it; the database was not changed.',
          { details: { location: options.location, unknownMigrations: unknown } },
        );
      const done: string[] = [];
      for (const id of known) {
        if (applied.has(id)) continue;
        current = id;
        await migrations[id]!.up(conn);
        await conn
          .insertInto('switchboard_migration')
          .values({ id, applied_at: now().toISOString() })
          .execute();
        done.push(id);
      }
      await sql`commit`.execute(conn);
      return done;
    } catch (error) {
      if (begun) await sql`rollback`.execute(conn);
      if (isSwitchboardError(error)) throw error;
      throw new SwitchboardError(
        'STORAGE_MIGRATION_FAILED',
        `Migrating ${where} failed at ${current}: ${describeError(error)}. Nothing was changed; ` +
          'check that the database is not damaged and that this process may write to it, then retry.',
        { cause: error, details: { location: options.location, migration: current } },
      );
    }
  });
}
