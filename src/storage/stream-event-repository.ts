/**
 * `StreamEventRepository` over Kysely (the `mcp_stream_events` table of migration 005): the
 * events of 2025 sessions' resumable streams, by stream token and sequence number.
 */
import type { Kysely } from 'kysely';
import { fromJson, toTime } from './json.js';
import type { StreamEventRepository } from './ports.js';
import type { Database } from './schema.js';

/** Rows per insert statement: PostgreSQL takes at most 65,535 parameters in one. */
const ROWS_PER_INSERT = 500;

export function createStreamEventRepository(db: Kysely<Database>): StreamEventRepository {
  return {
    async append(events) {
      for (let from = 0; from < events.length; from += ROWS_PER_INSERT) {
        const rows = events.slice(from, from + ROWS_PER_INSERT).map((event) => ({
          token: event.token,
          seq: event.seq,
          session: event.session,
          stream_id: event.streamId,
          message: event.message,
          requests: event.requests === undefined ? null : JSON.stringify(event.requests),
          at: toTime(event.at),
        }));
        // A repeated event (a retried batch) is the same event: kept once.
        await db
          .insertInto('mcp_stream_events')
          .values(rows)
          .onConflict((oc) => oc.columns(['token', 'seq']).doNothing())
          .execute();
      }
    },

    async head(token) {
      const row = await db
        .selectFrom('mcp_stream_events')
        .select(['session', 'stream_id', 'requests'])
        .where('token', '=', token)
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst();
      if (!row) return undefined;
      const requests = fromJson(row.requests);
      return {
        session: row.session,
        streamId: row.stream_id,
        ...(Array.isArray(requests) && { requests: requests as (string | number)[] }),
      };
    },

    async after(token, seq, limit) {
      const rows = await db
        .selectFrom('mcp_stream_events')
        .select(['seq', 'message'])
        .where('token', '=', token)
        .where('seq', '>', seq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ seq: Number(row.seq), message: row.message }));
    },

    async trim(token, seq) {
      await db
        .deleteFrom('mcp_stream_events')
        .where('token', '=', token)
        .where('seq', '>', 1)
        .where('seq', '<', seq)
        .execute();
    },

    async dropSession(session) {
      const result = await db
        .deleteFrom('mcp_stream_events')
        .where('session', '=', session)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async prune(before) {
      const result = await db
        .deleteFrom('mcp_stream_events')
        .where('at', '<', toTime(before))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
