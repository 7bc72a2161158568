/**
 * A `Store` over any migrated Kysely database: the dialect-neutral half of every backend.
 * Backends open their database, run `migrateToLatest`, then call `createStore`.
 */
import type { Kysely } from 'kysely';
import { type AuditRowWriter, createAuditRepository } from './audit-repository.js';
import { createEventRepository } from './event-repository.js';
import { createGrantRepository } from './grant-repository.js';
import type { Clock } from './json.js';
import { createKeyValueRepository } from './key-value-repository.js';
import { createLockRepository } from './lock-repository.js';
import { createPinRepository } from './pin-repository.js';
import type { Store } from './ports.js';
import type { Database } from './schema.js';
import { createServerRepository } from './server-repository.js';
import { createTokenRepository } from './token-repository.js';

/** Options of `createStore`. */
export interface CreateStoreOptions {
  /** The source of timestamps (default: the system clock). */
  clock?: Clock;
  /**
   * How long an audit record may wait to be written with others, in milliseconds (default 0:
   * after the current I/O events). Reads through this store always see every record.
   */
  auditWindowMs?: number;
  /** Writes a batch of audit rows past Kysely (SQLite: see database.ts); default a Kysely insert. */
  auditRows?: AuditRowWriter;
}

/**
 * When a batch of audit records is written: right after the current I/O events when the last
 * write was at least `windowMs` ago (a quiet store answers at once), else once that much has
 * passed since it — so a busy store commits at most every `windowMs`, with all it gathered,
 * however its records arrive (one per turn of the event loop, as a gateway's calls finish, is
 * the common case). Only a writer that awaits record after record waits: at most `windowMs`.
 */
export function groupCommit(windowMs: number): (flush: () => void) => void {
  let last = Number.NEGATIVE_INFINITY;
  const run = (flush: () => void) => () => {
    last = performance.now();
    flush();
  };
  return (flush) => {
    const wait = last + windowMs - performance.now();
    if (wait <= 0) setImmediate(run(flush));
    else setTimeout(run(flush), wait);
  };
}

/** The repositories over `db`, which must already be migrated; `close()` destroys `db`. */
export function createStore(db: Kysely<Database>, options: CreateStoreOptions = {}): Store {
  const clock = options.clock ?? (() => new Date());
  let closed: Promise<void> | undefined;
  const audit = createAuditRepository(db, clock, {
    defer: groupCommit(options.auditWindowMs ?? 0),
    ...(options.auditRows && { writeRows: options.auditRows }),
  });
  return {
    grants: createGrantRepository(db, clock),
    tokens: createTokenRepository(db, clock),
    locks: createLockRepository(db, clock),
    servers: createServerRepository(db, clock),
    events: createEventRepository(db, clock),
    kv: createKeyValueRepository(db, clock),
    pins: createPinRepository(db, clock),
    audit,
    close() {
      // Audit records still in a batch are written first: a clean shutdown loses none.
      closed ??= audit
        .flush()
        .catch(() => undefined)
        .then(() => db.destroy());
      return closed;
    },
  };
}
