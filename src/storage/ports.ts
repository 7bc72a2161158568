/**
 * The storage ports: what the rest of Switchboard may ask of persistence. Every method is
 * async so that a networked backend (PostgreSQL) fits the same interfaces as embedded SQLite,
 * and every backend must pass the same contract tests (`test/storage/store-contract.ts`).
 */
import type { EventStatus } from './schema.js';

export type { EventStatus } from './schema.js';

/** A server entry as stored: the entry itself is opaque JSON, validated by its owner. */
export interface StoredServer {
  readonly name: string;
  /** The entry as stored (JSON); its text when that no longer parses (a damaged row). */
  readonly entry: unknown;
  readonly enabled: boolean;
  /** Where the entry came from, e.g. `config:/path/file.json`, `api`, `registry`. */
  readonly source: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Registered and live server entries, keyed by name. */
export interface ServerRepository {
  /** Every entry, ordered by name. */
  list(): Promise<StoredServer[]>;
  /** The entry called `name`, or `undefined`. */
  get(name: string): Promise<StoredServer | undefined>;
  /** Inserts or replaces the entry called `name`; `createdAt` survives a replace. */
  upsert(input: { name: string; entry: unknown; enabled: boolean; source: string }): Promise<StoredServer>;
  /** Deletes the entry; `false` when there was none. */
  remove(name: string): Promise<boolean>;
  /** Turns the entry on or off; `false` when there is no such entry. */
  setEnabled(name: string, enabled: boolean): Promise<boolean>;
}

/** A persisted server notification. */
export interface StoredEvent {
  readonly id: number;
  readonly server: string;
  readonly method: string;
  readonly params: unknown;
  readonly receivedAt: Date;
  readonly status: EventStatus;
}

/**
 * Server notifications, delivered at least once: `append` stores them `pending`,
 * `takePending` hands each to exactly one taker and marks it `delivered`, `ack` marks it done.
 */
export interface EventRepository {
  /** Stores a notification as `pending` and returns its id (ids only grow). */
  append(input: { server: string; method: string; params?: unknown; receivedAt: Date }): Promise<number>;
  /** Writes every append made so far (appends are batched; reads flush first by themselves). */
  flush(): Promise<void>;
  /**
   * Up to `limit` pending events, oldest first, moved to `delivered` in one atomic step: two
   * takers, even in two processes, never receive the same event.
   */
  takePending(limit: number): Promise<StoredEvent[]>;
  /** Marks the events `acked`; returns how many changed. Unknown ids are ignored. */
  ack(ids: readonly number[]): Promise<number>;
  /** Hands `delivered` events back as `pending` (their consumer failed); returns how many. */
  release(ids: readonly number[]): Promise<number>;
  /** How many events there are, or how many in `status`. */
  count(status?: EventStatus): Promise<number>;
  /** Retention: deletes events received before `olderThan` (only in `status` if given). */
  prune(options: { olderThan: Date; status?: EventStatus }): Promise<number>;
  /**
   * A page of events of any status, newest first, for reading (nothing is claimed): only of
   * `server` if given, only with ids below `before`; `limit` is clamped to 1–500.
   */
  recent(options: { server?: string; before?: number; limit: number }): Promise<EventPage>;
}

/** A page of events, newest first; pass `nextCursor` as `before` for the next page. */
export interface EventPage {
  readonly events: StoredEvent[];
  readonly nextCursor?: number;
}

/** One namespaced JSON value. */
export interface KeyValueEntry {
  readonly key: string;
  readonly value: unknown;
  readonly updatedAt: Date;
}

/** Small namespaced JSON values: the protocol era verdict cache, settings. */
export interface KeyValueRepository {
  /** The value under `namespace`/`key`, or `undefined`. */
  get(namespace: string, key: string): Promise<unknown>;
  /** Stores `value` (any JSON value; `undefined` is refused) under `namespace`/`key`. */
  set(namespace: string, key: string, value: unknown): Promise<void>;
  /** Deletes the value; `false` when there was none. */
  delete(namespace: string, key: string): Promise<boolean>;
  /** Every entry of `namespace`, ordered by key. */
  list(namespace: string): Promise<KeyValueEntry[]>;
}

/** The pin of one tool definition. */
export interface ToolPin {
  readonly server: string;
  readonly tool: string;
  /** The hash approved: the first one seen, until `approve` says otherwise. */
  readonly approvedHash: string;
  /** The hash seen last. */
  readonly latestHash: string;
  /** True when the latest hash is not the approved one. */
  readonly changed: boolean;
  readonly firstSeenAt: Date;
  readonly updatedAt: Date;
}

/** What `PinRepository.record` found. */
export type PinVerdict =
  | { readonly status: 'new' }
  | { readonly status: 'same' }
  | { readonly status: 'changed'; readonly previousHash: string };

/**
 * Tool-definition pins (trust on first use): the first hash of a tool is approved; a later
 * different hash is recorded as changed but never replaces the approved one until `approve`.
 */
export interface PinRepository {
  /** The pin of `server`/`tool`, or `undefined`. */
  get(server: string, tool: string): Promise<ToolPin | undefined>;
  /** Records the hash seen now; `previousHash` is the approved hash it differs from. */
  record(server: string, tool: string, hash: string): Promise<PinVerdict>;
  /** Makes `hash` the approved hash of `server`/`tool` (creating the pin if needed). */
  approve(server: string, tool: string, hash: string): Promise<void>;
  /** Every pin whose latest hash differs from the approved one, by server then tool. */
  listChanged(): Promise<ToolPin[]>;
}

/** One audit record. */
export interface AuditEntry {
  readonly id: number;
  readonly at: Date;
  readonly server: string | null;
  readonly actor: string | null;
  readonly action: string;
  readonly outcome: string | null;
  readonly details: unknown;
}

/** What to append to the audit log; `at` defaults to now. */
export interface AuditInput {
  action: string;
  at?: Date;
  server?: string;
  actor?: string;
  outcome?: string;
  details?: unknown;
}

/** A page of the audit log, newest first; pass `nextCursor` as `before` for the next page. */
export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly nextCursor?: number;
}

/** The append-only audit log. */
export interface AuditRepository {
  /** Appends a record and returns its id (records are written in batches; see `flush`). */
  append(input: AuditInput): Promise<number>;
  /** Writes every record appended so far; the store calls it before it closes. */
  flush(): Promise<void>;
  /** Records appended and not yet committed (queued or being written). */
  pendingWrites(): number;
  /**
   * Records newest first, filtered by server, actor, action, outcome and `[since, until)`;
   * `limit` defaults to 100.
   */
  query(options?: {
    server?: string;
    actor?: string;
    action?: string;
    outcome?: string;
    since?: Date;
    until?: Date;
    before?: number;
    limit?: number;
  }): Promise<AuditPage>;
}

/** A store: the repositories over one database, and `close()`. */
/** A gateway replica as it last announced itself. */
export interface ReplicaRecord {
  readonly id: string;
  /** Where the other replicas reach it, e.g. `http://10.0.0.7:7777`; empty once it left. */
  readonly url: string;
  readonly seenAt: Date;
  /** How many Inbox front-ends (dashboards, inbox clients) it has attached. */
  readonly frontEnds: number;
  /** Its upstream servers' states as it last published them (JSON), if it did. */
  readonly servers?: unknown;
}

/** Who owns one MCP session, whose it is, and what re-creating it needs. */
export interface SessionRecord {
  readonly id: string;
  /** The id of the replica that holds it. */
  readonly owner: string;
  /** The id of the principal it belongs to. */
  readonly principal: string;
  /** `streamable` (2025 era) or `sse` (2024-11-05 HTTP+SSE). */
  readonly kind: 'streamable' | 'sse';
  /** What re-creating it needs (JSON): for a 2025 session, its `initialize` request. */
  readonly state: unknown;
  readonly updatedAt: Date;
}

/**
 * Gateway replicas sharing one database (docs/replicas.md): their heartbeats, and the
 * ownership of MCP sessions. Taking a session over is a compare-and-set on its owner, so two
 * replicas that both find the owner gone cannot both take it.
 */
export interface ReplicaRepository {
  /**
   * Records that `id` is alive at `url` now, with `frontEnds` Inbox front-ends attached
   * (default 0), and returns every replica as last seen.
   */
  beat(id: string, url: string, frontEnds?: number): Promise<ReplicaRecord[]>;
  /** Records the states of replica `id`'s upstream servers (JSON), for the others' dashboards. */
  publishServers(id: string, servers: unknown): Promise<void>;
  /**
   * Marks replica `id` as gone (a clean shutdown): it is no longer reached, and its sessions
   * are the others' to take over.
   */
  leave(id: string): Promise<void>;
  /** Records a new session (or replaces the record of `id`). */
  recordSession(session: Omit<SessionRecord, 'updatedAt'>): Promise<void>;
  /** The record of session `id`, or `undefined`. */
  session(id: string): Promise<SessionRecord | undefined>;
  /** Moves session `id` from `from` to `to`; `false` when `from` no longer owns it. */
  takeOver(id: string, from: string, to: string): Promise<boolean>;
  /** Deletes the record of session `id` (only while `owner` owns it, if given). */
  dropSession(id: string, owner?: string): Promise<boolean>;
  /**
   * Deletes replicas not seen since `before`, the sessions they still own (no replica took
   * them over in that long: their clients are gone) and their Inbox items.
   */
  sweep(before: Date): Promise<void>;
}

/** A pending Inbox item of one replica, as the front-ends of every replica see it. */
export interface SharedInboxItem {
  readonly id: string;
  /** The id of the replica whose call waits for it. */
  readonly owner: string;
  /** The item as front-ends show it (JSON): never an answer. */
  readonly item: unknown;
  readonly createdAt: Date;
}

/**
 * The Inbox items of every gateway replica on one database (docs/replicas.md): each replica
 * adds the items its calls wait on and removes them once answered; the others list them.
 */
export interface InboxItemRepository {
  add(item: SharedInboxItem): Promise<void>;
  /** Removes item `id`; false when it was not there. */
  remove(id: string): Promise<boolean>;
  /** Removes every item of replica `owner` (it stopped). */
  removeOwnedBy(owner: string): Promise<void>;
  /** Every item, oldest first. */
  list(): Promise<SharedInboxItem[]>;
}

/** One event of a 2025 session's resumable stream, as kept for the other replicas. */
export interface StreamEventRecord {
  /** The stream's token (the part of an event id before the dot). */
  readonly token: string;
  /** Its place in the stream, from 1. */
  readonly seq: number;
  readonly session: string;
  /** The SDK transport's id of the stream. */
  readonly streamId: string;
  /** The JSON-RPC message as JSON text (`{}` for a priming event). */
  readonly message: string;
  /** On a stream's first event: the JSON-RPC ids of the requests it answers. */
  readonly requests?: readonly (string | number)[];
  readonly at: Date;
}

/** What is known of a stream from its first event. */
export interface StreamHead {
  readonly session: string;
  readonly streamId: string;
  readonly requests?: readonly (string | number)[];
}

/**
 * Events of 2025 sessions' resumable streams, kept for the replicas (docs/replicas.md), so a
 * stream of a replica that died is resumed on the one that took its session over. Bounded by
 * its callers: `trim` per stream, `prune` by age, `dropSession` when a session ends.
 */
export interface StreamEventRepository {
  /** Stores events (a stream's `token` and `seq` are unique together). */
  append(events: readonly StreamEventRecord[]): Promise<void>;
  /** The session, stream id and requests of stream `token`, if any of its events is kept. */
  head(token: string): Promise<StreamHead | undefined>;
  /** The events of stream `token` after `seq`, in order, at most `limit`. */
  after(token: string, seq: number, limit: number): Promise<{ seq: number; message: string }[]>;
  /** Deletes the events of stream `token` before `seq` (its first event, the head, stays). */
  trim(token: string, seq: number): Promise<void>;
  /** Deletes every event of `session`; returns how many. */
  dropSession(session: string): Promise<number>;
  /** Deletes events stored before `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

/**
 * Messages between the processes on one database, as they happen (PostgreSQL LISTEN/NOTIFY):
 * a hint to read the store again, never the data itself. SQLite stores have none.
 */
export interface StoreNotifications {
  /**
   * Calls `listener` with each payload sent on `channel` by any process (this one included),
   * and with `undefined` when some may have been missed (the connection was lost and made
   * again: read everything again). Resolves once listening; the function it resolves with stops.
   */
  listen(channel: string, listener: (payload: string | undefined) => void): Promise<() => void>;
  /** Sends `payload` (at most 7,000 bytes) to every listener of `channel`. */
  notify(channel: string, payload?: string): Promise<void>;
}

/** A keyed call as recorded: who runs (or ran) it, and its result once there is one. */
export interface IdempotentCall {
  readonly owner: string;
  /** The result (JSON), absent while the call runs. */
  readonly result?: unknown;
  readonly expiresAt: Date;
}

/**
 * Results of calls made with an idempotency key, shared by the processes on one store: one
 * claims a key and runs the call, the others wait for its result. A claim expires on its own,
 * so a process that died with a call running never blocks the key for longer than the TTL.
 */
export interface IdempotencyRepository {
  /**
   * Claims `key` for `owner` for `runMs` from now (how long its call may run); false when
   * another holds it unexpired.
   */
  claim(key: string, owner: string, runMs: number): Promise<boolean>;
  /** Stores the result of `key`'s call (while `owner` holds it), kept `ttlMs` from now. */
  complete(key: string, owner: string, result: unknown, ttlMs: number): Promise<void>;
  /** The record of `key`, expired or not, or undefined. */
  get(key: string): Promise<IdempotentCall | undefined>;
  /** Gives `key` up (its call failed: failures are not kept). */
  abandon(key: string, owner: string): Promise<void>;
  /** Deletes the records expired by now; returns how many. */
  prune(): Promise<number>;
}

/** The lifecycle states of a task, shared by both eras of MCP tasks. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as stored: who may see it, where its work is, its state, and when it goes. */
export interface StoredTask {
  readonly id: string;
  /** The principal whose call created it: the only one who may see or steer it. */
  readonly principal: string;
  readonly server: string;
  readonly tool: string;
  /** `relayed`: the upstream server keeps the task (`upstreamId`); `run`: a gateway process runs the call (`owner`). */
  readonly kind: 'relayed' | 'run';
  readonly upstreamId?: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** JSON, the gateway's to read: a result, a JSON-RPC error, or the input requests waited on. */
  readonly outcome?: unknown;
  /** The process running a `run` task, and until when it has promised to be alive. */
  readonly owner?: string;
  readonly leaseUntil?: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Its creation plus its ttl: then the task and its result are deleted. */
  readonly expiresAt: Date;
}

/** What `TaskRepository.create` stores: the task's own fields, its owner's first lease, its ttl. */
export interface NewTask
  extends Pick<
    StoredTask,
    | 'id'
    | 'principal'
    | 'server'
    | 'tool'
    | 'kind'
    | 'upstreamId'
    | 'status'
    | 'statusMessage'
    | 'outcome'
    | 'owner'
  > {
  /** How long the owner's first lease lasts. */
  readonly leaseMs?: number;
  readonly ttlMs: number;
}

/** A change of a task's state: `null` clears a field, `undefined` leaves it. */
export interface TaskChange {
  readonly status: TaskStatus;
  readonly statusMessage?: string | null;
  readonly outcome?: unknown;
}

/**
 * Tasks the gateway answered its clients with, shared by every process on the store: any of
 * them can answer a poll, whichever created the task. A finished task (completed, failed,
 * cancelled) never changes again, so a worker that finishes after its task was cancelled, or
 * declared dead, changes nothing. Expired tasks read as absent, and `prune` deletes them.
 */
export interface TaskRepository {
  /** Stores a new task, created now and expiring `ttlMs` from now. */
  create(task: NewTask): Promise<StoredTask>;
  /** The task `id`, or undefined when there is none or it has expired. */
  get(id: string): Promise<StoredTask | undefined>;
  /**
   * Applies `change` to an unfinished, unexpired task (with `owner`: only while that process
   * holds it); false when the task is finished, expired, unknown or another's.
   */
  update(id: string, change: TaskChange, options?: { readonly owner?: string }): Promise<boolean>;
  /** Extends the leases of `owner`'s unfinished tasks to `leaseMs` from now; returns how many. */
  renew(owner: string, leaseMs: number): Promise<number>;
  /** Deletes the tasks expired by now; returns how many. */
  prune(): Promise<number>;
}

export interface Store {
  readonly grants: GrantRepository;
  readonly inboxItems: InboxItemRepository;
  readonly streamEvents: StreamEventRepository;
  /** Notifications between the processes on the database; PostgreSQL only. */
  readonly notifications?: StoreNotifications;
  readonly idempotency: IdempotencyRepository;
  readonly tasks: TaskRepository;
  readonly replicas: ReplicaRepository;
  readonly tokens: TokenRepository;
  readonly locks: LockRepository;
  readonly servers: ServerRepository;
  readonly events: EventRepository;
  readonly kv: KeyValueRepository;
  readonly pins: PinRepository;
  readonly audit: AuditRepository;
  /** Closes the database; the repositories must not be used afterwards. */
  close(): Promise<void>;
}

/** One grant: `group` (a server name, or `config`) activated in a session or one of its frames. */
export interface Grant {
  readonly session: string;
  /** `''` for the session itself; a sub-agent's stack frame id otherwise. */
  readonly frame: string;
  readonly group: string;
  readonly grantedAt: Date;
}

/**
 * Lazy-loading grants, persisted so they survive a restart. A frame's grants go when the frame
 * ends; a sub-agent frame starts with none of its own.
 */
export interface GrantRepository {
  /** Adds a grant (idempotent). */
  grant(input: { session: string; frame?: string; group: string }): Promise<void>;
  /** Grants of one frame (`''`, the default: the session itself). */
  list(session: string, frame?: string): Promise<Grant[]>;
  /** Removes one grant; `false` when there was none. */
  revoke(input: { session: string; frame?: string; group: string }): Promise<boolean>;
  /** Deletes every grant of a frame (when the sub-agent ends); returns how many. */
  endFrame(session: string, frame: string): Promise<number>;
  /** Deletes every grant of a session, frames included; returns how many. */
  endSession(session: string): Promise<number>;
}

/** Stored credentials by server and issuer: opaque text (the OAuth layer encrypts it). */
export interface TokenRepository {
  get(server: string, issuer: string): Promise<string | undefined>;
  set(server: string, issuer: string, secret: string): Promise<void>;
  delete(server: string, issuer?: string): Promise<number>;
  /** The issuers a server has credentials for. */
  issuers(server: string): Promise<string[]>;
}

/** Who holds a lease, and until when. */
export interface LockLease {
  readonly name: string;
  readonly owner: string;
  readonly expiresAt: Date;
}

/**
 * Named leases shared by every process on the database: at most one owner holds a name until
 * it releases it or the lease expires. Expiry is judged by each caller's clock, so hosts
 * sharing a database need roughly synchronised clocks; a holder that may outlive its lease
 * must not rely on it any longer.
 */
export interface LockRepository {
  /**
   * Takes `name` for `owner` for `ttlMs` when it is free, expired, or already `owner`'s (which
   * extends it), in one atomic statement; `false` when someone else holds it.
   */
  tryAcquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Ends `owner`'s lease on `name`; `false` when `owner` did not hold it (expired and taken). */
  release(name: string, owner: string): Promise<boolean>;
  /** The current lease on `name`, expired or not, or `undefined`; for messages. */
  holder(name: string): Promise<LockLease | undefined>;
}
