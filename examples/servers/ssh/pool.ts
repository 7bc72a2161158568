/**
 * The connection pool: one live SSH connection per target, reused by every tool call, closed
 * once it has been idle for the pool's lifetime. Eviction is lazy — checked whenever the pool
 * is used — plus one unref'd timer, so an idle server still lets go of its connections and
 * the timer never keeps the process alive.
 */
import { SshError } from './errors.js';
import type { Clock } from './secret-cache.js';

/** What the pool needs of a connection. */
export interface Poolable {
  /** Whether the connection still works (closed or broken ones are dropped). */
  readonly alive: boolean;
  /** Whether a command or transfer is running on it now (never closed for idleness then). */
  readonly busy: boolean;
  close(): void;
}

/** Connections by key, each closed `ttlMs` after its last use, at most `max` at once. */
export class ConnectionPool<C extends Poolable> {
  private readonly entries = new Map<string, { connection: C; lastUsed: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: { ttlMs: number; max: number; now?: Clock }) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The pooled connection for `key`, if alive and not idle too long; marks it used. */
  take(key: string): C | undefined {
    this.evict();
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.lastUsed = this.now();
    return entry.connection;
  }

  /**
   * Checks there is room for one more before a connection is opened: an error naming the
   * limit and what to do, so nothing is dialled that could not be kept.
   */
  ensureRoom(key: string): void {
    this.evict();
    if (!this.entries.has(key) && this.entries.size >= this.options.max)
      throw new SshError(
        'LIMIT',
        `${this.entries.size} connections are open, the most this server keeps (SSH_MCP_POOL_MAX); disconnect one first.`,
      );
  }

  /**
   * Pools a newly opened connection and returns the one to use. When another call opened one
   * for the same key meanwhile (two calls dialled at once), the live one already pooled is
   * kept — it may be running a command — and the new one is closed. Without room, the new one
   * is closed and the limit reported.
   */
  put(key: string, connection: C): C {
    this.evict();
    const existing = this.entries.get(key);
    if (existing !== undefined && existing.connection !== connection && existing.connection.alive) {
      connection.close();
      existing.lastUsed = this.now();
      return existing.connection;
    }
    try {
      this.ensureRoom(key);
    } catch (error) {
      connection.close();
      throw error;
    }
    this.entries.set(key, { connection, lastUsed: this.now() });
    this.schedule();
    return connection;
  }

  /** Closes and forgets one connection; false when there was none. */
  close(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    entry.connection.close();
    return true;
  }

  /** Closes every connection; returns their keys. */
  closeAll(): string[] {
    const keys = [...this.entries.keys()];
    for (const key of keys) this.close(key);
    return keys;
  }

  /** The keys of the connections held now, with how long each has been idle. */
  list(): { key: string; idleMs: number }[] {
    this.evict();
    const now = this.now();
    return [...this.entries].map(([key, e]) => ({ key, idleMs: now - e.lastUsed }));
  }

  /**
   * Drops dead connections and closes those idle for the lifetime or longer. A busy one is in
   * use, so its idle time starts again from now.
   */
  evict(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.connection.alive && entry.connection.busy) entry.lastUsed = now;
      else if (!entry.connection.alive || now - entry.lastUsed >= this.options.ttlMs) this.close(key);
    }
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(
      () => {
        this.evict();
        if (this.entries.size === 0 && this.timer !== undefined) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
      Math.min(this.options.ttlMs, 30_000),
    );
    this.timer.unref();
  }
}
