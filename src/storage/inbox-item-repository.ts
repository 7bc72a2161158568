/**
 * `InboxItemRepository` over Kysely (the `inbox_items` table of migration 005): the pending
 * Inbox items of every gateway replica, for every replica's front-ends to list.
 */
import type { Kysely } from 'kysely';
import { fromJson, fromTime, toJson, toTime } from './json.js';
import type { InboxItemRepository } from './ports.js';
import type { Database } from './schema.js';

export function createInboxItemRepository(db: Kysely<Database>): InboxItemRepository {
  return {
    async add(item) {
      const values = {
        owner: item.owner,
        item: toJson(item.item, `inbox item ${item.id}`),
        created_at: toTime(item.createdAt),
      };
      await db
        .insertInto('inbox_items')
        .values({ id: item.id, ...values })
        .onConflict((oc) => oc.column('id').doUpdateSet(values))
        .execute();
    },

    async remove(id) {
      const result = await db.deleteFrom('inbox_items').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async removeOwnedBy(owner) {
      await db.deleteFrom('inbox_items').where('owner', '=', owner).execute();
    },

    async list() {
      const rows = await db
        .selectFrom('inbox_items')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        owner: row.owner,
        item: fromJson(row.item),
        createdAt: fromTime(row.created_at),
      }));
    },
  };
}
