/**
 * The environment variable naming a PostgreSQL store (`postgres://user:pass@host/db`). Its own
 * module so that a CLI verb can tell whether a store may exist without loading the host.
 */
export const DATABASE_URL_ENV = 'SWITCHBOARD_DATABASE_URL';
