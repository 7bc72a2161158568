/** `AuditRepository` over Kysely: an append-only log, read newest first with an id cursor. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { BatchedWrites } from './batched-writes.js';
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

/** Options of `createAuditRepository`. */
export interface AuditRepositoryOptions {
  /** Rows written in one statement at most. Default 128. */
  readonly maxBatch?: number;
  /** Runs a pending write soon; default `setImmediate` (after the current I/O events). */
  readonly defer?: (flush: () => void) => void;
  /** Writes rows in one transaction past Kysely, ids in row order; default a Kysely insert. */
  readonly writeRows?: AuditRowWriter;
}

/** Stores `rows` in one transaction, all or none, and returns their ids in the same order. */
export type AuditRowWriter = (rows: readonly Insertable<AuditTable>[]) => readonly number[];

/**
 * The audit repository of `db`. Appends made close together (the calls of a busy gateway) are
 * written as one multi-row insert, soon after; each append still resolves with its id once its
 * row is stored, and a query first writes whatever is pending, so it sees every append made
 * before it.
 */
export function createAuditRepository(
  db: Kysely<Database>,
  clock: Clock,
  options: AuditRepositoryOptions = {},
): AuditRepository {
  const { writeRows } = options;
  const insertOne = async (row: Insertable<AuditTable>) =>
    writeRows
      ? writeRows([row])[0]!
      : Number((await db.insertInto('audit').values(row).returning('id').executeTakeFirstOrThrow()).id);
  const pending = new BatchedWrites<Insertable<AuditTable>>({
    write: async (rows) => {
      if (writeRows) return writeRows(rows);
      const inserted = await db
        .insertInto('audit')
        .values([...rows])
        .returning('id')
        .execute();
      // Ids grow in the order of the rows; RETURNING itself promises no order.
      return inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
    },
    writeOne: insertOne,
    ...(options.maxBatch !== undefined && { maxBatch: options.maxBatch }),
    ...(options.defer && { defer: options.defer }),
  });
  return {
    async append(input) {
      // Converted now, so a bad value is refused to its caller and never enters a batch.
      const row: Insertable<AuditTable> = {
        at: toTime(input.at ?? clock()),
        server: input.server ?? null,
        actor: input.actor ?? null,
        action: input.action,
        outcome: input.outcome ?? null,
        details: toOptionalJson(input.details, `the details of audit action ${input.action}`),
      };
      return pending.add(row);
    },

    flush() {
      return pending.flush();
    },

    pendingWrites() {
      return pending.depth;
    },

    async query(options = {}) {
      await pending.flush();
      const limit = Math.min(Math.max(Math.floor(options.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
      let query = db
        .selectFrom('audit')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (options.server !== undefined) query = query.where('server', '=', options.server);
      if (options.actor !== undefined) query = query.where('actor', '=', options.actor);
      if (options.action !== undefined) query = query.where('action', '=', options.action);
      if (options.outcome !== undefined) query = query.where('outcome', '=', options.outcome);
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
