/**
 * 002: tool grants of agent sessions (lazy loading: which servers a session or one of its
 * sub-agent frames has activated) and stored credentials (opaque, already-encrypted blobs —
 * encryption is the OAuth layer's job). Forward-only.
 */
import type { Kysely, Migration } from 'kysely';

export const migration002GrantsTokens: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('grants')
      .addColumn('session', 'text', (col) => col.notNull())
      // '' is the session itself; a sub-agent's stack frame has its own id.
      .addColumn('frame', 'text', (col) => col.notNull())
      .addColumn('grp', 'text', (col) => col.notNull())
      .addColumn('granted_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('grants_pk', ['session', 'frame', 'grp'])
      .execute();

    await db.schema
      .createTable('tokens')
      .addColumn('server', 'text', (col) => col.notNull())
      .addColumn('issuer', 'text', (col) => col.notNull())
      .addColumn('secret', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('tokens_pk', ['server', 'issuer'])
      .execute();
  },
};
