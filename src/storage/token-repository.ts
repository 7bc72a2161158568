/** `TokenRepository` over Kysely: opaque credentials by server and issuer. */
import type { Kysely } from 'kysely';
import { type Clock, toTime } from './json.js';
import type { TokenRepository } from './ports.js';
import type { Database } from './schema.js';

export function createTokenRepository(db: Kysely<Database>, clock: Clock): TokenRepository {
  return {
    async get(server, issuer) {
      const row = await db
        .selectFrom('tokens')
        .select('secret')
        .where('server', '=', server)
        .where('issuer', '=', issuer)
        .executeTakeFirst();
      return row?.secret;
    },

    async set(server, issuer, secret) {
      const values = { secret, updated_at: toTime(clock()) };
      await db
        .insertInto('tokens')
        .values({ server, issuer, ...values })
        .onConflict((oc) => oc.columns(['server', 'issuer']).doUpdateSet(values))
        .execute();
    },

    async delete(server, issuer) {
      let query = db.deleteFrom('tokens').where('server', '=', server);
      if (issuer !== undefined) query = query.where('issuer', '=', issuer);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async issuers(server) {
      const rows = await db
        .selectFrom('tokens')
        .select('issuer')
        .where('server', '=', server)
        .orderBy('issuer')
        .execute();
      return rows.map((r) => r.issuer);
    },
  };
}
