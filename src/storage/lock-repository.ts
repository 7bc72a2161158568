/**
 * `LockRepository` over Kysely: named leases in the `locks` table. Taking a lease is one upsert
 * whose update only fires when the row is expired or already the caller's, so two processes
 * racing for a free or expired lease cannot both win: the database serialises the statements
 * and the loser's update finds the winner's fresh row and changes nothing.
 */
import type { Kysely } from 'kysely';
import { type Clock, fromTime, toTime } from './json.js';
import type { LockRepository } from './ports.js';
import type { Database } from './schema.js';

export function createLockRepository(db: Kysely<Database>, clock: Clock): LockRepository {
  return {
    async tryAcquire(name, owner, ttlMs) {
      const now = clock();
      const expiresAt = toTime(new Date(now.getTime() + ttlMs));
      const result = await db
        .insertInto('locks')
        .values({ name, owner, expires_at: expiresAt })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet((eb) => ({
              owner: eb.ref('excluded.owner'),
              expires_at: eb.ref('excluded.expires_at'),
            }))
            .where((eb) =>
              eb.or([
                eb('locks.expires_at', '<', toTime(now)),
                eb('locks.owner', '=', eb.ref('excluded.owner')),
              ]),
            ),
        )
        .executeTakeFirst();
      // Inserted, or updated because it was free to take: one row. Held by another: none.
      return result.numInsertedOrUpdatedRows === 1n;
    },

    async release(name, owner) {
      const result = await db
        .deleteFrom('locks')
        .where('name', '=', name)
        .where('owner', '=', owner)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async holder(name) {
      const row = await db.selectFrom('locks').selectAll().where('name', '=', name).executeTakeFirst();
      return row && { name: row.name, owner: row.owner, expiresAt: fromTime(row.expires_at) };
    },
  };
}
