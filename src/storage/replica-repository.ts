/**
 * `ReplicaRepository` over Kysely: the `replicas` heartbeat table and the `mcp_sessions`
 * ownership table (migrations 004 and 005). A takeover is one conditional update (`where owner = from`),
 * so the database decides which of two racing replicas wins.
 */
import type { Kysely } from 'kysely';
import { type Clock, fromJson, fromTime, toJson, toTime } from './json.js';
import type { ReplicaRepository } from './ports.js';
import type { Database } from './schema.js';

export function createReplicaRepository(db: Kysely<Database>, clock: Clock): ReplicaRepository {
  return {
    async beat(id, url, frontEnds = 0) {
      const seenAt = toTime(clock());
      await db
        .insertInto('replicas')
        .values({ id, url, seen_at: seenAt, front_ends: frontEnds })
        .onConflict((oc) => oc.column('id').doUpdateSet({ url, seen_at: seenAt, front_ends: frontEnds }))
        .execute();
      const rows = await db.selectFrom('replicas').selectAll().orderBy('id').execute();
      return rows.map((row) => ({
        id: row.id,
        url: row.url,
        seenAt: fromTime(row.seen_at),
        frontEnds: Number(row.front_ends),
        ...(row.servers !== null && { servers: fromJson(row.servers) }),
      }));
    },

    async publishServers(id, servers) {
      await db
        .updateTable('replicas')
        .set({ servers: toJson(servers, `the servers of replica ${id}`) })
        .where('id', '=', id)
        .execute();
    },

    async leave(id) {
      // The row stays, with no URL, until the sweep: its time says how long its sessions wait.
      await db.updateTable('replicas').set({ url: '' }).where('id', '=', id).execute();
    },

    async recordSession(session) {
      const values = {
        owner: session.owner,
        principal: session.principal,
        kind: session.kind,
        state: toJson(session.state, `the state of session ${session.id}`),
        updated_at: toTime(clock()),
      };
      await db
        .insertInto('mcp_sessions')
        .values({ id: session.id, ...values })
        .onConflict((oc) => oc.column('id').doUpdateSet(values))
        .execute();
    },

    async session(id) {
      const row = await db.selectFrom('mcp_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        owner: row.owner,
        principal: row.principal,
        kind: row.kind === 'sse' ? 'sse' : 'streamable',
        state: fromJson(row.state),
        updatedAt: fromTime(row.updated_at),
      };
    },

    async takeOver(id, from, to) {
      const result = await db
        .updateTable('mcp_sessions')
        .set({ owner: to, updated_at: toTime(clock()) })
        .where('id', '=', id)
        .where('owner', '=', from)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },

    async dropSession(id, owner) {
      let query = db.deleteFrom('mcp_sessions').where('id', '=', id);
      if (owner !== undefined) query = query.where('owner', '=', owner);
      const result = await query.executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async sweep(before) {
      const recent = db.selectFrom('replicas').select('id').where('seen_at', '>=', toTime(before));
      await db.deleteFrom('mcp_sessions').where('owner', 'not in', recent).execute();
      await db.deleteFrom('inbox_items').where('owner', 'not in', recent).execute();
      await db.deleteFrom('replicas').where('seen_at', '<', toTime(before)).execute();
    },
  };
}
