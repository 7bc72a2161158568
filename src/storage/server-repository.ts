/** `ServerRepository` over Kysely: server entries as JSON text, keyed by name. */
import type { Kysely, Selectable } from 'kysely';
import { type Clock, fromJson, fromTime, toJson, toTime } from './json.js';
import type { ServerRepository, StoredServer } from './ports.js';
import type { Database, ServersTable } from './schema.js';

function toServer(row: Selectable<ServersTable>): StoredServer {
  return {
    name: row.name,
    entry: entryOf(row.entry),
    enabled: row.enabled !== 0,
    source: row.source,
    createdAt: fromTime(row.created_at),
    updatedAt: fromTime(row.updated_at),
  };
}

/**
 * The stored entry; a text that no longer parses (a damaged row) comes back as that text, so
 * that one bad row is reported as that server's problem instead of failing every listing.
 */
function entryOf(text: string): unknown {
  try {
    return fromJson(text);
  } catch {
    return text;
  }
}

/** The server repository of `db`. */
export function createServerRepository(db: Kysely<Database>, clock: Clock): ServerRepository {
  return {
    async list() {
      const rows = await db.selectFrom('servers').selectAll().orderBy('name').execute();
      return rows.map(toServer);
    },

    async get(name) {
      const row = await db.selectFrom('servers').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toServer(row);
    },

    async upsert({ name, entry, enabled, source }) {
      const now = toTime(clock());
      const values = {
        entry: toJson(entry, `the entry of server "${name}"`),
        enabled: enabled ? 1 : 0,
        source,
      };
      const row = await db
        .insertInto('servers')
        .values({ name, ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('name').doUpdateSet({ ...values, updated_at: now }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toServer(row);
    },

    async remove(name) {
      const result = await db.deleteFrom('servers').where('name', '=', name).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async setEnabled(name, enabled) {
      const result = await db
        .updateTable('servers')
        .set({ enabled: enabled ? 1 : 0, updated_at: toTime(clock()) })
        .where('name', '=', name)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
