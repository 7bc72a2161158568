/**
 * `IdempotencyRepository` over Kysely (the `idempotency` table of migration 004). A claim is
 * one upsert whose update fires only on an expired row, so of two processes claiming a key at
 * once the database lets exactly one win.
 */
import type { Kysely } from 'kysely';
import { type Clock, fromJson, fromTime, toJson, toTime } from './json.js';
import type { IdempotencyRepository } from './ports.js';
import type { Database } from './schema.js';

export function createIdempotencyRepository(db: Kysely<Database>, clock: Clock): IdempotencyRepository {
  return {
    async claim(key, owner, runMs) {
      const now = clock();
      const result = await db
        .insertInto('idempotency')
        .values({ key, owner, result: null, expires_at: toTime(new Date(now.getTime() + runMs)) })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet((eb) => ({
              owner: eb.ref('excluded.owner'),
              result: null,
              expires_at: eb.ref('excluded.expires_at'),
            }))
            .where('idempotency.expires_at', '<', toTime(now)),
        )
        .executeTakeFirst();
      return result.numInsertedOrUpdatedRows === 1n;
    },

    async complete(key, owner, value, ttlMs) {
      await db
        .updateTable('idempotency')
        .set({
          result: toJson(value, `the result of idempotent call ${key}`),
          expires_at: toTime(new Date(clock().getTime() + ttlMs)),
        })
        .where('key', '=', key)
        .where('owner', '=', owner)
        .execute();
    },

    async get(key) {
      const row = await db.selectFrom('idempotency').selectAll().where('key', '=', key).executeTakeFirst();
      if (!row) return undefined;
      return {
        owner: row.owner,
        ...(row.result !== null && { result: fromJson(row.result) }),
        expiresAt: fromTime(row.expires_at),
      };
    },

    async abandon(key, owner) {
      await db.deleteFrom('idempotency').where('key', '=', key).where('owner', '=', owner).execute();
    },

    async prune() {
      const result = await db
        .deleteFrom('idempotency')
        .where('expires_at', '<', toTime(clock()))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
