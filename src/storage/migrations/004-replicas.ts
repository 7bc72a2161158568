/**
 * 004: gateway replicas sharing one database. `replicas` holds each running gateway's
 * internal URL and the last time it said it was alive; `mcp_sessions` records which replica
 * owns each 2025-era (and 2024-11-05 SSE) session, whose principal it is, and what its client
 * sent at `initialize`, so that any replica can forward a session's requests to its owner or,
 * when the owner is gone, re-create the session. `idempotency` holds the results of calls
 * made with an idempotency key, claimed by the replica that runs the call, so a retry on
 * another replica gets the first result. Forward-only.
 */
import type { Kysely, Migration } from 'kysely';

export const migration004Replicas: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('replicas')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('seen_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createTable('mcp_sessions')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('principal', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('state', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('mcp_sessions_owner').on('mcp_sessions').column('owner').execute();
    await db.schema
      .createTable('idempotency')
      .addColumn('key', 'text', (col) => col.primaryKey())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('result', 'text')
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
  },
};
