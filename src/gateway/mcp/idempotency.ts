/**
 * Idempotent calls: a client that retries a call with the same idempotency key (in the call's
 * `_meta.idempotencyKey`) within the TTL gets the first call's result — or waits for it, if the
 * first is still running — and the upstream is called once. Keys are scoped to a principal, so
 * one client cannot read another's results by guessing keys. Bounded in entries (oldest out).
 */
export interface Idempotency<T> {
  /** The result for `key` of `principal`: the first call's, within the TTL, else `run()`'s. */
  run(principal: string, key: string, run: () => Promise<T>): Promise<T>;
}

/** The cache of one process (the replicas' shared one is gateway/replicas/shared-idempotency.ts). */
export class IdempotencyCache<T> implements Idempotency<T> {
  private readonly entries = new Map<string, { readonly at: number; readonly value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The result for `key`: the cached one within the TTL, else `run()`'s (a failure is not cached). */
  run(principal: string, key: string, run: () => Promise<T>): Promise<T> {
    const id = `${principal}\u0000${key}`;
    const hit = this.entries.get(id);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = run();
    this.entries.set(id, { at: this.now(), value });
    value.catch(() => {
      if (this.entries.get(id)?.value === value) this.entries.delete(id);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}
