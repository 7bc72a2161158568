/**
 * 003: named leases (`locks`), so that processes sharing one database can take turns at work
 * that must not run twice at once — refreshing the same OAuth token, above all. A lease
 * expires on its own, so a crashed holder never blocks the others for long. Forward-only.
 */
import type { Kysely, Migration } from 'kysely';

export const migration003Locks: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('locks')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
  },
};
