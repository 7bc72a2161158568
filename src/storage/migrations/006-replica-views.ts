/**
 * 005: what replicas of one gateway show each other (docs/replicas.md). `replicas` gains how
 * many Inbox front-ends (dashboards, inbox clients) each has attached — so an approval raised
 * on one waits when someone can answer it on another — and its upstream servers' states, as
 * the dashboard shows them. `inbox_items` holds every pending approval and elicitation of
 * every replica, as front-ends see them (never an answer). `mcp_stream_events` holds the
 * events of 2025 sessions' resumable streams, so a client resumes a stream on the replica
 * that took its session over from one that died. Forward-only.
 */
import type { Kysely, Migration } from 'kysely';

export const migration006ReplicaViews: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('replicas')
      .addColumn('front_ends', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('replicas').addColumn('servers', 'text').execute();
    await db.schema
      .createTable('inbox_items')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('item', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('inbox_items_owner').on('inbox_items').column('owner').execute();
    await db.schema
      .createTable('mcp_stream_events')
      .addColumn('token', 'text', (col) => col.notNull())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .addColumn('session', 'text', (col) => col.notNull())
      .addColumn('stream_id', 'text', (col) => col.notNull())
      .addColumn('message', 'text', (col) => col.notNull())
      .addColumn('requests', 'text')
      .addColumn('at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('mcp_stream_events_pk', ['token', 'seq'])
      .execute();
    await db.schema.createIndex('mcp_stream_events_at').on('mcp_stream_events').column('at').execute();
    await db.schema
      .createIndex('mcp_stream_events_session')
      .on('mcp_stream_events')
      .column('session')
      .execute();
  },
};
