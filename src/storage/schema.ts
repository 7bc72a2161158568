/**
 * The relational schema of the store, as Kysely sees it. Written once for every dialect, so it
 * only uses what SQLite and PostgreSQL share: text, integer, and JSON kept as text. Timestamps
 * are ISO-8601 UTC strings from `Date.toISOString()`, which sort in time order as text;
 * booleans are integers 0/1. Ids are 64-bit integers, which `pg` reads as strings: read them
 * through `Number()`.
 */
import type { Generated } from 'kysely';

/** `servers`: one registered or live server entry per name; `entry` is the entry as JSON. */
export interface ServersTable {
  name: string;
  entry: string;
  enabled: number;
  source: string;
  created_at: string;
  updated_at: string;
}

/** Where a persisted server notification is in its delivery lifecycle. */
export type EventStatus = 'pending' | 'delivered' | 'acked';

/** `events`: server notifications, delivered at least once through `takePending`/`ack`. */
export interface EventsTable {
  id: Generated<number | string>;
  server: string;
  method: string;
  params: string | null;
  received_at: string;
  status: EventStatus;
  delivered_at: string | null;
  acked_at: string | null;
}

/** `kv`: small JSON values, namespaced (era verdict cache, settings). */
export interface KeyValueTable {
  namespace: string;
  key: string;
  value: string;
  updated_at: string;
}

/**
 * `tool_pins`: the approved hash of a tool definition and the latest one seen. They differ
 * when the server changed the tool after approval (a possible "rug pull").
 */
export interface ToolPinsTable {
  server: string;
  tool: string;
  approved_hash: string;
  latest_hash: string;
  first_seen_at: string;
  updated_at: string;
}

/** `audit`: an append-only log of governed actions. */
export interface AuditTable {
  id: Generated<number | string>;
  at: string;
  server: string | null;
  actor: string | null;
  action: string;
  outcome: string | null;
  details: string | null;
}

/** `switchboard_migration`: the ids of the migrations applied to this database. */
export interface MigrationTable {
  id: string;
  applied_at: string;
}

/** Every table of the store, for `Kysely<Database>`. */
/** `grants`: groups (servers, or `config`) a session — or a sub-agent frame of it — activated. */
export interface GrantsTable {
  session: string;
  frame: string;
  grp: string;
  granted_at: string;
}

/** `tokens`: credentials by server and issuer, as opaque (already encrypted) text. */
export interface TokensTable {
  server: string;
  issuer: string;
  secret: string;
  updated_at: string;
}

/** `locks`: named leases; a lease whose `expires_at` has passed is free for anyone to take. */
export interface LocksTable {
  name: string;
  owner: string;
  expires_at: string;
}

/** `replicas`: gateways sharing this database, with their internal URL and last heartbeat. */
export interface ReplicasTable {
  id: string;
  url: string;
  seen_at: string;
  /** How many Inbox front-ends it has attached (migration 005). */
  front_ends: Generated<number>;
  /** Its upstream servers' states as JSON, null until it published them (migration 005). */
  servers: string | null;
}

/** `mcp_sessions`: which replica owns a 2025-era session, whose it is, and its `initialize`. */
export interface McpSessionsTable {
  id: string;
  owner: string;
  principal: string;
  kind: string;
  state: string;
  updated_at: string;
}

/** `idempotency`: a keyed call's result (null while its owner runs it), until it expires. */
export interface IdempotencyTable {
  key: string;
  owner: string;
  result: string | null;
  expires_at: string;
}

/**
 * `tasks`: the tasks the gateway answered clients with. `kind` is `relayed` (the upstream's own
 * task, `upstream_id`) or `run` (run by the gateway process `owner`, alive until `lease_until`
 * unless it renews it); `outcome` is JSON (a result, a JSON-RPC error, or input requests).
 */
export interface TasksTable {
  id: string;
  principal: string;
  server: string;
  tool: string;
  kind: string;
  upstream_id: string | null;
  status: string;
  status_message: string | null;
  outcome: string | null;
  owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

/** `inbox_items`: a pending approval or elicitation of some replica, as front-ends see it. */
export interface InboxItemsTable {
  id: string;
  owner: string;
  item: string;
  created_at: string;
}

/** `mcp_stream_events`: one event of a 2025 session's resumable stream (`requests` on its first). */
export interface McpStreamEventsTable {
  token: string;
  seq: number;
  session: string;
  stream_id: string;
  message: string;
  requests: string | null;
  at: string;
}

export interface Database {
  inbox_items: InboxItemsTable;
  mcp_stream_events: McpStreamEventsTable;
  grants: GrantsTable;
  tasks: TasksTable;
  idempotency: IdempotencyTable;
  replicas: ReplicasTable;
  mcp_sessions: McpSessionsTable;
  tokens: TokensTable;
  locks: LocksTable;
  servers: ServersTable;
  events: EventsTable;
  kv: KeyValueTable;
  tool_pins: ToolPinsTable;
  audit: AuditTable;
  switchboard_migration: MigrationTable;
}
