/**
 * Public API of the storage layer: the ports, the SQLite and PostgreSQL backends, the chooser
 * between them, and the backend toolkit.
 */

export type { OpenSqliteStoreOptions, SqliteLocation } from './database.js';
export { openSqliteStore } from './database.js';
export type { StoreDialect } from './dialect.js';
export type { Clock } from './json.js';
export { MIGRATIONS } from './migrations/index.js';
export type { MigrateOptions } from './migrations/runner.js';
export { migrateToLatest } from './migrations/runner.js';
export type { OpenStoreOptions } from './open-store.js';
export { openStore } from './open-store.js';
export type {
  AuditEntry,
  AuditInput,
  AuditPage,
  AuditRepository,
  EventRepository,
  EventStatus,
  Grant,
  GrantRepository,
  IdempotencyRepository,
  IdempotentCall,
  KeyValueEntry,
  KeyValueRepository,
  LockLease,
  LockRepository,
  NewTask,
  PinRepository,
  PinVerdict,
  ReplicaRecord,
  ReplicaRepository,
  ServerRepository,
  SessionRecord,
  Store,
  StoredEvent,
  StoredServer,
  StoredTask,
  TaskChange,
  TaskRepository,
  TaskStatus,
  TokenRepository,
  ToolPin,
} from './ports.js';
export type { OpenPostgresStoreOptions, PostgresLocation } from './postgres-database.js';
export { openPostgresStore } from './postgres-database.js';
export { isPostgresUrl, redactDatabaseUrl } from './postgres-url.js';
export type { Database } from './schema.js';
export type { CreateStoreOptions } from './store.js';
export { createStore } from './store.js';
export { taskStatusOf } from './task-repository.js';
