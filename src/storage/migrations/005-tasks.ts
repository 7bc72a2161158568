/**
 * 005: tasks the gateway answered a client with (MCP tasks, 2025-11-25 and the 2026-07-28
 * Tasks extension), so that a task's id, state and result outlive the gateway process that
 * created it. `kind` says who keeps the work: `relayed` (an upstream server's own task, known
 * here by `upstream_id`) or `run` (a call the gateway runs itself, in the process named by
 * `owner`, which renews `lease_until` while it lives). `outcome` is JSON: the result or the
 * JSON-RPC error of a finished task, the input requests of one waiting for its client. A row
 * is deleted once `expires_at` (its creation plus its ttl) has passed. Forward-only.
 */
import type { Kysely, Migration } from 'kysely';

export const migration005Tasks: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('principal', 'text', (col) => col.notNull())
      .addColumn('server', 'text', (col) => col.notNull())
      .addColumn('tool', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('upstream_id', 'text')
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('status_message', 'text')
      .addColumn('outcome', 'text')
      .addColumn('owner', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    // The sweep deletes by expiry; an owner renews the leases of its unfinished tasks.
    await db.schema.createIndex('tasks_expires_at').on('tasks').column('expires_at').execute();
    await db.schema.createIndex('tasks_owner_status').on('tasks').columns(['owner', 'status']).execute();
  },
};
