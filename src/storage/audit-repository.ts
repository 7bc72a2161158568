/** `AuditRepository` over Kysely: an append-only log, read newest first with an id cursor. */
import type { Kysely, Selectable } from 'kysely';
import { type Clock, fromJson, fromTime, toOptionalJson, toTime } from './json.js';
import type { AuditEntry, AuditRepository } from './ports.js';
import type { AuditTable, Database } from './schema.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function toEntry(row: Selectable<AuditTable>): AuditEntry {
  return {
    id: Number(row.id),
    at: fromTime(row.at),
    server: row.server,
    actor: row.actor,
    action: row.action,
    outcome: row.outcome,
    details: fromJson(row.details),
  };
}

/** The audit repository of `db`. */
export function createAuditRepository(db: Kysely<Database>, clock: Clock): AuditRepository {
  return {
    async append(input) {
      const row = await db
        .insertInto('audit')
        .values({
          at: toTime(input.at ?? clock()),
          server: input.server ?? null,
          actor: input.actor ?? null,
          action: input.action,
          outcome: input.outcome ?? null,
          details: toOptionalJson(input.details, `the details of audit action ${input.action}`),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    async query(options = {}) {
      const limit = Math.min(Math.max(Math.floor(options.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
      let query = db
        .selectFrom('audit')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (options.server !== undefined) query = query.where('server', '=', options.server);
      if (options.actor !== undefined) query = query.where('actor', '=', options.actor);
      if (options.action !== undefined) query = query.where('action', '=', options.action);
      if (options.since !== undefined) query = query.where('at', '>=', toTime(options.since));
      if (options.until !== undefined) query = query.where('at', '<', toTime(options.until));
      if (options.before !== undefined) query = query.where('id', '<', options.before);
      const rows = await query.execute();
      const entries = rows.slice(0, limit).map(toEntry);
      // One row beyond the page tells whether there is a next page without a count query.
      return rows.length > limit ? { entries, nextCursor: entries[entries.length - 1]!.id } : { entries };
    },
  };
}
