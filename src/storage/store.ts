/**
 * A `Store` over any migrated Kysely database: the dialect-neutral half of every backend.
 * Backends open their database, run `migrateToLatest`, then call `createStore`.
 */
import type { Kysely } from 'kysely';
import { type AuditRowWriter, createAuditRepository } from './audit-repository.js';
import { createEventRepository } from './event-repository.js';
import { createGrantRepository } from './grant-repository.js';
import { createIdempotencyRepository } from './idempotency-repository.js';
import { createInboxItemRepository } from './inbox-item-repository.js';
import type { Clock } from './json.js';
import { createKeyValueRepository } from './key-value-repository.js';
import { createLockRepository } from './lock-repository.js';
import { createPinRepository } from './pin-repository.js';
import type { Store, StoreNotifications } from './ports.js';
import { createReplicaRepository } from './replica-repository.js';
import type { Database } from './schema.js';
import { createServerRepository } from './server-repository.js';
import { createStreamEventRepository } from './stream-event-repository.js';
import { createTaskRepository } from './task-repository.js';
import { createTokenRepository } from './token-repository.js';

/** Options of `createStore`. */
export interface CreateStoreOptions {
  /** The source of timestamps (default: the system clock). */
  clock?: Clock;
  /** Writes a batch of audit rows past Kysely (SQLite: see database.ts); default a Kysely insert. */
  auditRows?: AuditRowWriter;
  /** Notifications between processes (PostgreSQL); closed with the store. */
  notifications?: StoreNotifications & { close(): Promise<void> };
}

/** The repositories over `db`, which must already be migrated; `close()` destroys `db`. */
export function createStore(db: Kysely<Database>, options: CreateStoreOptions = {}): Store {
  const clock = options.clock ?? (() => new Date());
  let closed: Promise<void> | undefined;
  // Audit records are written after the current I/O events, those of one turn together: the
  // calls answered in that turn wait for that one commit (audit-repository.ts).
  const audit = createAuditRepository(db, clock, options.auditRows && { writeRows: options.auditRows });
  const events = createEventRepository(db, clock);
  const { notifications } = options;
  return {
    grants: createGrantRepository(db, clock),
    inboxItems: createInboxItemRepository(db),
    streamEvents: createStreamEventRepository(db),
    ...(notifications && { notifications }),
    idempotency: createIdempotencyRepository(db, clock),
    tasks: createTaskRepository(db, clock),
    tokens: createTokenRepository(db, clock),
    locks: createLockRepository(db, clock),
    replicas: createReplicaRepository(db, clock),
    servers: createServerRepository(db, clock),
    events,
    kv: createKeyValueRepository(db, clock),
    pins: createPinRepository(db, clock),
    audit,
    close() {
      // Audit records and events still in a batch are written first: a clean shutdown loses none.
      closed ??= Promise.all([audit.flush(), events.flush(), notifications?.close()])
        .catch(() => undefined)
        .then(() => db.destroy());
      return closed;
    },
  };
}
