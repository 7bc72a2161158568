/** `KeyValueRepository` over Kysely: namespaced JSON values. */
import type { Kysely } from 'kysely';
import { type Clock, fromJson, fromTime, toJson, toTime } from './json.js';
import type { KeyValueRepository } from './ports.js';
import type { Database } from './schema.js';

/** The key-value repository of `db`. */
export function createKeyValueRepository(db: Kysely<Database>, clock: Clock): KeyValueRepository {
  return {
    async get(namespace, key) {
      const row = await db
        .selectFrom('kv')
        .select('value')
        .where('namespace', '=', namespace)
        .where('key', '=', key)
        .executeTakeFirst();
      return row && fromJson(row.value);
    },

    async set(namespace, key, value) {
      const values = {
        value: toJson(value, `the value of ${namespace}/${key}`),
        updated_at: toTime(clock()),
      };
      await db
        .insertInto('kv')
        .values({ namespace, key, ...values })
        .onConflict((oc) => oc.columns(['namespace', 'key']).doUpdateSet(values))
        .execute();
    },

    async delete(namespace, key) {
      const result = await db
        .deleteFrom('kv')
        .where('namespace', '=', namespace)
        .where('key', '=', key)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async list(namespace) {
      const rows = await db
        .selectFrom('kv')
        .select(['key', 'value', 'updated_at'])
        .where('namespace', '=', namespace)
        .orderBy('key')
        .execute();
      return rows.map((row) => ({
        key: row.key,
        value: fromJson(row.value),
        updatedAt: fromTime(row.updated_at),
      }));
    },
  };
}
