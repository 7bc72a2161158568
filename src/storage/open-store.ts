/**
 * One way in for callers that hold a location string (a setting, an environment variable): a
 * PostgreSQL URL opens the shared backend, anything else is a SQLite file path.
 */
import { SwitchboardError } from '../core/errors.js';
import { openSqliteStore } from './database.js';
import type { Clock } from './json.js';
import type { Store } from './ports.js';
import { openPostgresStore } from './postgres-database.js';
import { isPostgresUrl, isUrlLike, redactDatabaseUrl } from './postgres-url.js';

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** The source of timestamps (default: the system clock). */
  clock?: Clock;
}

/**
 * Opens the store at `location`: a `postgres://` or `postgresql://` URL opens PostgreSQL
 * (`openPostgresStore`), any other text is a SQLite file (`openSqliteStore`). A URL of another
 * scheme is refused with `STORAGE_FAILED` rather than taken for a file name.
 */
export function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const clock = options.clock && { clock: options.clock };
  if (isPostgresUrl(location)) return openPostgresStore({ url: location, ...clock });
  if (isUrlLike(location)) {
    const shown = redactDatabaseUrl(location);
    return Promise.reject(
      new SwitchboardError(
        'STORAGE_FAILED',
        `Switchboard cannot store its data at ${shown}: only postgres:// and postgresql:// URLs are ` +
          'supported; give a PostgreSQL URL, or a file path for SQLite.',
        { details: { location: shown } },
      ),
    );
  }
  return openSqliteStore({ file: location, ...clock });
}
