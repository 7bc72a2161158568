/**
 * `PinRepository` over Kysely: trust on first use for tool definitions. The first hash seen is
 * approved; a different one later is kept as `latest_hash` beside the approved one, so the
 * change stays visible until someone approves it.
 */
import type { Kysely, Selectable } from 'kysely';
import { SwitchboardError } from '../core/errors.js';
import { type Clock, fromTime, toTime } from './json.js';
import type { PinRepository, PinVerdict, ToolPin } from './ports.js';
import type { Database, ToolPinsTable } from './schema.js';

function toPin(row: Selectable<ToolPinsTable>): ToolPin {
  return {
    server: row.server,
    tool: row.tool,
    approvedHash: row.approved_hash,
    latestHash: row.latest_hash,
    changed: row.approved_hash !== row.latest_hash,
    firstSeenAt: fromTime(row.first_seen_at),
    updatedAt: fromTime(row.updated_at),
  };
}

/** The pin repository of `db`. */
export function createPinRepository(db: Kysely<Database>, clock: Clock): PinRepository {
  return {
    async get(server, tool) {
      const row = await db
        .selectFrom('tool_pins')
        .selectAll()
        .where('server', '=', server)
        .where('tool', '=', tool)
        .executeTakeFirst();
      return row && toPin(row);
    },

    async record(server, tool, hash): Promise<PinVerdict> {
      const now = toTime(clock());
      // Insert-if-absent first: of two concurrent first sightings, exactly one is 'new'.
      const inserted = await db
        .insertInto('tool_pins')
        .values({ server, tool, approved_hash: hash, latest_hash: hash, first_seen_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['server', 'tool']).doNothing())
        .returning('server')
        .executeTakeFirst();
      if (inserted) return { status: 'new' };
      const row = await db
        .updateTable('tool_pins')
        .set({ latest_hash: hash, updated_at: now })
        .where('server', '=', server)
        .where('tool', '=', tool)
        .returning('approved_hash')
        .executeTakeFirst();
      if (!row)
        throw new SwitchboardError(
          'STORAGE_FAILED',
          `The pin of tool "${tool}" on server "${server}" vanished while it was being recorded; retry.`,
          { details: { server, tool } },
        );
      return row.approved_hash === hash
        ? { status: 'same' }
        : { status: 'changed', previousHash: row.approved_hash };
    },

    async approve(server, tool, hash) {
      const now = toTime(clock());
      await db
        .insertInto('tool_pins')
        .values({ server, tool, approved_hash: hash, latest_hash: hash, first_seen_at: now, updated_at: now })
        .onConflict((oc) =>
          oc.columns(['server', 'tool']).doUpdateSet({ approved_hash: hash, updated_at: now }),
        )
        .execute();
    },

    async listChanged() {
      const rows = await db
        .selectFrom('tool_pins')
        .selectAll()
        .whereRef('approved_hash', '!=', 'latest_hash')
        .orderBy('server')
        .orderBy('tool')
        .execute();
      return rows.map(toPin);
    },
  };
}
