/**
 * Token buckets keyed by address or principal. Each key holds up to `burst` tokens, refilled
 * continuously at `perSecond`; a request takes one. The keys live in a map bounded to
 * `maxKeys` with least-recently-used eviction, so a flood of new addresses costs a fixed
 * amount of memory (an evicted key comes back with a full bucket, which only ever errs on
 * the side of letting a request through). Pure: the clock is injected.
 */

export interface TokenBucketOptions {
  readonly burst: number;
  readonly perSecond: number;
  /** Most keys held at once. Default 10 000. */
  readonly maxKeys?: number;
  /** Milliseconds; default `Date.now`. */
  readonly now?: () => number;
  /**
   * The part of `burst` and `perSecond` this process may grant (1 alone; 1/N for one of N
   * replicas behind an even balancer, docs/replicas.md), read at each take. Default 1.
   */
  readonly share?: () => number;
}

/** The answer for one request: allowed, or refused with how long to wait. */
export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export const DEFAULT_MAX_KEYS = 10_000;

const TAKEN: TakeResult = { ok: true };

export class TokenBuckets {
  readonly #burst: number;
  readonly #perMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #share: (() => number) | undefined;
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  readonly #buckets = new Map<string, Bucket>();
  /** The key of the last take: the newest in `#buckets`, when it is there. */
  #last: string | undefined;

  constructor(options: TokenBucketOptions) {
    this.#burst = options.burst;
    this.#perMs = options.perSecond / 1000;
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = options.now ?? Date.now;
    this.#share = options.share;
  }

  /** Takes a token for `key`, or says how many whole seconds until one is there. */
  take(key: string): TakeResult {
    const now = this.#now();
    const share = this.#share?.() ?? 1;
    // A bucket holds at least one token, so a small burst split N ways still lets requests by;
    // a hair more than the product, since 30 × (1/3) is 9.999… in binary floating point.
    const burst = share === 1 ? this.#burst : Math.max(1, this.#burst * share * (1 + 1e-9));
    const perMs = this.#perMs * share;
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: now };
      this.#buckets.set(key, bucket);
      if (this.#buckets.size > this.#maxKeys) {
        const oldest = this.#buckets.keys().next();
        if (!oldest.done) this.#buckets.delete(oldest.value);
      }
    } else if (key !== this.#last) {
      // Moved to the end, as the most recent; the key used last is there already.
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
    }
    this.#last = key;
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return TAKEN;
    }
    const waitMs = (1 - bucket.tokens) / perMs;
    // Retry-After is whole seconds (RFC 9110 §10.2.3); rounding up never invites an early retry.
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** How many keys are held (for tests and metrics). */
  get size(): number {
    return this.#buckets.size;
  }
}
