/**
 * Which SQL dialect a Kysely instance speaks. The repositories are dialect-neutral; only the
 * migration lock and identity columns need to know.
 */
import { type Kysely, PostgresAdapter, SqliteAdapter } from 'kysely';
import { SwitchboardError } from '../core/errors.js';

/** The dialects the store knows about. */
export type StoreDialect = 'sqlite' | 'postgres';

/** The dialect of `db`; anything else is refused because the migrations were not written for it. */
export function dialectOf(db: Kysely<unknown>): StoreDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  if (adapter instanceof PostgresAdapter) return 'postgres';
  throw new SwitchboardError(
    'STORAGE_FAILED',
    `Switchboard storage does not support the ${adapter.constructor.name} dialect; use SQLite or PostgreSQL.`,
  );
}
