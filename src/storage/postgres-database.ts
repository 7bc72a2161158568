/**
 * The shared backend: a PostgreSQL database reached through a `pg` connection pool, so that
 * several Switchboards on several machines can use one store. What keeps them apart lives in
 * the dialect-neutral code: the migration runner serialises on an advisory lock, `takePending`
 * re-checks each claimed row, and a lease is taken by one conditional upsert.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
// Types only here: the driver itself is loaded when a PostgreSQL store is opened, so a process
// on SQLite never pays for it (about 15 MiB of memory).
import type pg from 'pg';
import { describeError, SwitchboardError } from '../core/errors.js';
import type { Clock } from './json.js';
import { migrateToLatest } from './migrations/runner.js';
import type { Store } from './ports.js';
import { PostgresNotifications } from './postgres-notifications.js';
import { isPostgresUrl, redactDatabaseUrl, scrubSecrets, secretsOfUrl } from './postgres-url.js';
import type { Database } from './schema.js';
import { createStore } from './store.js';

/**
 * Where the PostgreSQL database is: a `postgres://user:password@host:port/database` URL (query
 * parameters such as `sslmode` are honoured), or a `pg` pool the caller configured. The store
 * owns the pool either way: `close()` ends it.
 */
export type PostgresLocation = { url: string } | { pool: pg.Pool };

/** Options of `openPostgresStore`. */
export type OpenPostgresStoreOptions = PostgresLocation & {
  /** The source of timestamps (default: the system clock). */
  clock?: Clock;
};

/** How long opening a connection may take; pg's default is to wait forever. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens the PostgreSQL store at `url` (or over `pool`) and migrates it to the latest schema;
 * the database must exist. Throws `STORAGE_FAILED` when the URL is not a PostgreSQL URL or the
 * database cannot be reached (the message names the URL without its password),
 * `STORAGE_TOO_NEW` when a newer Switchboard migrated it, `STORAGE_MIGRATION_FAILED` when
 * migrating fails.
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<Store> {
  const { pool, location, secrets } = 'url' in options ? await poolOf(options.url) : borrowed(options.pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    // Connect once up front: a wrong host or password is a connection problem, not a migration one.
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw new SwitchboardError(
      'STORAGE_FAILED',
      scrubSecrets(
        `Cannot connect to the Switchboard database ${location}: ${describeConnectError(error)}. Check ` +
          'that the PostgreSQL server is running and reachable from this machine, that the host, port, ' +
          'user and password are right, and that the database exists (create it first).',
        secrets,
      ),
      // pg's errors carry no password (its URL parser redacts its own); `location` has none.
      { cause: error, details: { location } },
    );
  }
  try {
    await migrateToLatest(db, { location, ...(options.clock && { clock: options.clock }) });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // LISTEN needs a connection of its own, made like the pool's (pg's Client, loaded as above).
  const { default: driver } = await import('pg');
  return createStore(db, {
    ...(options.clock && { clock: options.clock }),
    notifications: new PostgresNotifications(pool, driver.Client),
  });
}

interface Opened {
  readonly pool: pg.Pool;
  /** The database for messages, without its password. */
  readonly location: string;
  /** What must not appear in messages. */
  readonly secrets: readonly string[];
}

/** A pool for `url`, after checking that it is a PostgreSQL URL at all. */
async function poolOf(url: string): Promise<Opened> {
  const location = redactDatabaseUrl(url);
  if (!isPostgresUrl(url) || !URL.canParse(url)) {
    // An unparsable URL is not shown: where its password starts cannot be told.
    const what = URL.canParse(url)
      ? `${location} is not a PostgreSQL URL`
      : 'The database URL does not parse';
    throw new SwitchboardError(
      'STORAGE_FAILED',
      `${what}. Write it as postgres://user:password@host:port/database, with special characters ` +
        'in the password percent-encoded.',
      { details: { location } },
    );
  }
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection the server drops (a restart, a failover) is reported here; the pool
  // discards it and the next query connects afresh. Without a listener the process would crash.
  pool.on('error', () => undefined);
  return { pool, location, secrets: secretsOfUrl(url) };
}

/** The caller's pool, described for messages from its settings. */
function borrowed(pool: pg.Pool): Opened {
  const { connectionString, host, port, user, database, password } = pool.options;
  if (connectionString)
    return { pool, location: redactDatabaseUrl(connectionString), secrets: secretsOfUrl(connectionString) };
  const who = user ? `${user}@` : '';
  return {
    pool,
    location: `postgres://${who}${host ?? 'localhost'}:${port ?? 5432}/${database ?? ''}`,
    secrets: typeof password === 'string' ? [password] : [],
  };
}

/**
 * What went wrong connecting. Node reports a refused connection to a name with several
 * addresses as an `AggregateError` whose own message is empty; its parts say more.
 */
function describeConnectError(error: unknown): string {
  if (error instanceof AggregateError && !error.message)
    return error.errors.map(describeError).join('; ') || 'connection failed';
  const code = (error as { code?: unknown } | null)?.code;
  const text = describeError(error);
  return text || (typeof code === 'string' ? code : 'connection failed');
}
