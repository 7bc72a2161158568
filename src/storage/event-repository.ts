/**
 * `EventRepository` over Kysely. Delivery is at-least-once: `takePending` claims events with a
 * single `UPDATE … WHERE id IN (oldest pending) AND status = 'pending' RETURNING`, which is
 * atomic in SQLite (a write statement holds the write lock from its start) and safe in
 * PostgreSQL (a concurrent taker re-checks `status` on the row it waited for and skips it).
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { BatchedWrites } from './batched-writes.js';
import { type Clock, fromJson, fromTime, toOptionalJson, toTime } from './json.js';
import type { EventRepository, StoredEvent } from './ports.js';
import type { Database, EventsTable } from './schema.js';

/** Ids per statement in `ack`: far below SQLite's and PostgreSQL's bound-parameter limits. */
const ACK_CHUNK = 500;
/** The largest page `recent` returns. */
const MAX_RECENT = 500;

function toEvent(row: Selectable<EventsTable>): StoredEvent {
  return {
    id: Number(row.id),
    server: row.server,
    method: row.method,
    params: fromJson(row.params),
    receivedAt: fromTime(row.received_at),
    status: row.status,
  };
}

/**
 * The event repository of `db`. Appends made close together (a server's burst of
 * notifications) are written as one multi-row insert, soon after, as audit records are
 * (batched-writes.ts); each append still resolves with its id once its row is stored, and
 * every read first writes what is pending, so it sees every append made before it.
 */
export function createEventRepository(db: Kysely<Database>, clock: Clock): EventRepository {
  const pending = new BatchedWrites<Insertable<EventsTable>>({
    write: async (rows) => {
      const inserted = await db
        .insertInto('events')
        .values([...rows])
        .returning('id')
        .execute();
      // Ids grow in the order of the rows; RETURNING itself promises no order.
      return inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
    },
    writeOne: async (row) =>
      Number((await db.insertInto('events').values(row).returning('id').executeTakeFirstOrThrow()).id),
  });
  return {
    append({ server, method, params, receivedAt }) {
      try {
        // Converted now, so a bad value is refused to its caller and never enters a batch.
        return pending.add({
          server,
          method,
          params: toOptionalJson(params, `the params of ${method} from "${server}"`),
          received_at: toTime(receivedAt),
          status: 'pending',
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },

    flush() {
      return pending.flush();
    },

    async takePending(limit) {
      await pending.flush();
      const n = Math.floor(limit);
      if (!(n > 0)) return [];
      const rows = await db
        .updateTable('events')
        .set({ status: 'delivered', delivered_at: toTime(clock()) })
        .where('id', 'in', (eb) =>
          eb.selectFrom('events').select('id').where('status', '=', 'pending').orderBy('id').limit(n),
        )
        // Re-checked on the row itself: the guard that keeps two takers apart in PostgreSQL.
        .where('status', '=', 'pending')
        .returningAll()
        .execute();
      // RETURNING promises no order.
      return rows.map(toEvent).sort((a, b) => a.id - b.id);
    },

    async ack(ids) {
      const now = toTime(clock());
      return updateInChunks(ids, (chunk) =>
        db
          .updateTable('events')
          .set({ status: 'acked', acked_at: now })
          .where('id', 'in', chunk)
          .where('status', '!=', 'acked')
          .executeTakeFirst(),
      );
    },

    async release(ids) {
      return updateInChunks(ids, (chunk) =>
        db
          .updateTable('events')
          .set({ status: 'pending', delivered_at: null })
          .where('id', 'in', chunk)
          .where('status', '=', 'delivered')
          .executeTakeFirst(),
      );
    },

    async count(status) {
      await pending.flush();
      let query = db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'));
      if (status !== undefined) query = query.where('status', '=', status);
      const row = await query.executeTakeFirstOrThrow();
      // PostgreSQL returns count(*) as a string (bigint).
      return Number(row.n);
    },

    async prune({ olderThan, status }) {
      await pending.flush();
      let query = db.deleteFrom('events').where('received_at', '<', toTime(olderThan));
      if (status !== undefined) query = query.where('status', '=', status);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async recent({ server, before, limit }) {
      await pending.flush();
      const n = Math.min(Math.max(Math.floor(limit) || 1, 1), MAX_RECENT);
      let query = db
        .selectFrom('events')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(n + 1);
      if (server !== undefined) query = query.where('server', '=', server);
      if (before !== undefined) query = query.where('id', '<', before);
      const rows = await query.execute();
      const events = rows.slice(0, n).map(toEvent);
      // One row beyond the page tells whether there is a next page without a count query.
      return rows.length > n ? { events, nextCursor: events[events.length - 1]!.id } : { events };
    },
  };
}

/** Runs an update over `ids` in chunks (SQL parameter limits) and adds up the rows changed. */
async function updateInChunks(
  ids: readonly number[],
  update: (chunk: number[]) => Promise<{ numUpdatedRows: bigint }>,
): Promise<number> {
  let changed = 0;
  for (let i = 0; i < ids.length; i += ACK_CHUNK)
    changed += Number((await update(ids.slice(i, i + ACK_CHUNK))).numUpdatedRows);
  return changed;
}
