/**
 * `TaskRepository` over Kysely (the `tasks` table of migration 005). Every change is one
 * conditional update (`where status is unfinished and not expired`, and the owner when given),
 * so of a worker finishing and a client cancelling at once the database lets one win, and a
 * finished task stays as it finished.
 */
import type { Kysely, Selectable } from 'kysely';
import { type Clock, fromJson, fromTime, toJson, toTime } from './json.js';
import type { StoredTask, TaskRepository, TaskStatus } from './ports.js';
import type { Database, TasksTable } from './schema.js';

const UNFINISHED: readonly TaskStatus[] = ['working', 'input_required'];
const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** `value` as a task status, or undefined when it is none (a newer version's, or garbage). */
export function taskStatusOf(value: unknown): TaskStatus | undefined {
  return typeof value === 'string' && STATUSES.has(value) ? (value as TaskStatus) : undefined;
}

export function createTaskRepository(db: Kysely<Database>, clock: Clock): TaskRepository {
  const later = (ms: number) => toTime(new Date(clock().getTime() + ms));
  return {
    async create(task) {
      const now = toTime(clock());
      const row = {
        id: task.id,
        principal: task.principal,
        server: task.server,
        tool: task.tool,
        kind: task.kind,
        upstream_id: task.upstreamId ?? null,
        status: task.status,
        status_message: task.statusMessage ?? null,
        outcome: task.outcome === undefined ? null : toJson(task.outcome, `the outcome of task ${task.id}`),
        owner: task.owner ?? null,
        lease_until: task.leaseMs === undefined ? null : later(task.leaseMs),
        created_at: now,
        updated_at: now,
        expires_at: later(task.ttlMs),
      };
      await db.insertInto('tasks').values(row).execute();
      return fromRow(row);
    },

    async get(id) {
      const row = await db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', id)
        .where('expires_at', '>', toTime(clock()))
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async update(id, change, options = {}) {
      const now = toTime(clock());
      let query = db
        .updateTable('tasks')
        .set({
          status: change.status,
          updated_at: now,
          ...(change.statusMessage !== undefined && { status_message: change.statusMessage }),
          ...(change.outcome !== undefined && {
            outcome: change.outcome === null ? null : toJson(change.outcome, `the outcome of task ${id}`),
          }),
        })
        .where('id', '=', id)
        .where('status', 'in', UNFINISHED)
        .where('expires_at', '>', now);
      if (options.owner !== undefined) query = query.where('owner', '=', options.owner);
      const result = await query.executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async renew(owner, leaseMs) {
      const result = await db
        .updateTable('tasks')
        .set({ lease_until: later(leaseMs) })
        .where('owner', '=', owner)
        .where('status', 'in', UNFINISHED)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async prune() {
      const result = await db
        .deleteFrom('tasks')
        .where('expires_at', '<=', toTime(clock()))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function fromRow(row: Selectable<TasksTable>): StoredTask {
  // A status this version does not know (a newer Switchboard's) reads as failed, never as running.
  const status = taskStatusOf(row.status) ?? 'failed';
  return {
    id: row.id,
    principal: row.principal,
    server: row.server,
    tool: row.tool,
    kind: row.kind === 'relayed' ? 'relayed' : 'run',
    ...(row.upstream_id !== null && { upstreamId: row.upstream_id }),
    status,
    ...(row.status_message !== null && { statusMessage: row.status_message }),
    ...(row.outcome !== null && { outcome: fromJson(row.outcome) }),
    ...(row.owner !== null && { owner: row.owner }),
    ...(row.lease_until !== null && { leaseUntil: fromTime(row.lease_until) }),
    createdAt: fromTime(row.created_at),
    updatedAt: fromTime(row.updated_at),
    expiresAt: fromTime(row.expires_at),
  };
}
