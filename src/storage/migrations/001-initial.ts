/**
 * 001: the first schema: servers, events, kv, tool_pins, audit. Forward-only: a later change
 * is a new numbered migration, never an edit of this one.
 */
import { type ColumnDefinitionBuilder, type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * An ever-growing 64-bit integer key: ids are never reused, even after rows are deleted.
 * SQLite's INTEGER is 64-bit already; PostgreSQL's is 32-bit, too few for a busy audit log.
 */
function identity(db: Kysely<unknown>) {
  return dialectOf(db) === 'postgres'
    ? {
        type: 'bigint' as const,
        build: (col: ColumnDefinitionBuilder) => col.generatedByDefaultAsIdentity().primaryKey(),
      }
    : { type: 'integer' as const, build: (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement() };
}

/** The initial schema. */
export const migration001Initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const id = identity(db);
    await db.schema
      .createTable('servers')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('entry', 'text', (col) => col.notNull())
      .addColumn('enabled', 'integer', (col) => col.notNull())
      .addColumn('source', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('events')
      .addColumn('id', id.type, id.build)
      .addColumn('server', 'text', (col) => col.notNull())
      .addColumn('method', 'text', (col) => col.notNull())
      .addColumn('params', 'text')
      .addColumn('received_at', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull().defaultTo('pending'))
      .addColumn('delivered_at', 'text')
      .addColumn('acked_at', 'text')
      .addCheckConstraint('events_status_check', sql`status in ('pending', 'delivered', 'acked')`)
      .execute();
    // takePending scans pending events oldest first; prune scans by time.
    await db.schema.createIndex('events_status_id').on('events').columns(['status', 'id']).execute();
    await db.schema.createIndex('events_received_at').on('events').column('received_at').execute();

    await db.schema
      .createTable('kv')
      .addColumn('namespace', 'text', (col) => col.notNull())
      .addColumn('key', 'text', (col) => col.notNull())
      .addColumn('value', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('kv_pk', ['namespace', 'key'])
      .execute();

    await db.schema
      .createTable('tool_pins')
      .addColumn('server', 'text', (col) => col.notNull())
      .addColumn('tool', 'text', (col) => col.notNull())
      .addColumn('approved_hash', 'text', (col) => col.notNull())
      .addColumn('latest_hash', 'text', (col) => col.notNull())
      .addColumn('first_seen_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('tool_pins_pk', ['server', 'tool'])
      .execute();

    await db.schema
      .createTable('audit')
      .addColumn('id', id.type, id.build)
      .addColumn('at', 'text', (col) => col.notNull())
      .addColumn('server', 'text')
      .addColumn('actor', 'text')
      .addColumn('action', 'text', (col) => col.notNull())
      .addColumn('outcome', 'text')
      .addColumn('details', 'text')
      .execute();
    await db.schema.createIndex('audit_at').on('audit').column('at').execute();
    await db.schema.createIndex('audit_server_id').on('audit').columns(['server', 'id']).execute();
  },
};
