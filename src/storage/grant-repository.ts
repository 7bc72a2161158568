/** `GrantRepository` over Kysely: lazy-loading grants per session and sub-agent frame. */
import type { Kysely } from 'kysely';
import { type Clock, fromTime, toTime } from './json.js';
import type { GrantRepository } from './ports.js';
import type { Database } from './schema.js';

export function createGrantRepository(db: Kysely<Database>, clock: Clock): GrantRepository {
  return {
    async grant({ session, frame = '', group }) {
      await db
        .insertInto('grants')
        .values({ session, frame, grp: group, granted_at: toTime(clock()) })
        .onConflict((oc) => oc.columns(['session', 'frame', 'grp']).doNothing())
        .execute();
    },

    async list(session, frame = '') {
      const rows = await db
        .selectFrom('grants')
        .selectAll()
        .where('session', '=', session)
        .where('frame', '=', frame)
        .orderBy('grp')
        .execute();
      return rows.map((r) => ({
        session: r.session,
        frame: r.frame,
        group: r.grp,
        grantedAt: fromTime(r.granted_at),
      }));
    },

    async revoke({ session, frame = '', group }) {
      const result = await db
        .deleteFrom('grants')
        .where('session', '=', session)
        .where('frame', '=', frame)
        .where('grp', '=', group)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async endFrame(session, frame) {
      const result = await db
        .deleteFrom('grants')
        .where('session', '=', session)
        .where('frame', '=', frame)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async endSession(session) {
      const result = await db.deleteFrom('grants').where('session', '=', session).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
