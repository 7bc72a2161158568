import { BoundedMemo } from '../../../core/bounded-memo.js';
import { countRateLimited } from '../../../core/telemetry/counters.js';
import { rateLimitKey } from '../addresses.js';
import type { GatewayContext, Middleware, RequestHead } from '../context.js';
import { HttpError } from '../http-error.js';
import { TokenBuckets } from '../token-bucket.js';

export interface RateLimitOptions {
  /** Whose bucket a request takes from: its address, or its authenticated principal. */
  readonly by: 'ip' | 'principal';
  readonly burst: number;
  readonly perSecond: number;
  /** Most buckets held at once (LRU beyond that). Default 10 000. */
  readonly maxKeys?: number;
  /** Milliseconds; default `Date.now`. */
  readonly now?: () => number;
  /** The part of the limit this process grants (token-bucket.ts); default all of it. */
  readonly share?: () => number;
  /** Requests this limit does not count (relayed by another replica, which counted them). */
  readonly exempt?: (head: RequestHead) => boolean;
}

/**
 * A token-bucket rate limit: over it, 429 with `Retry-After` in seconds (RFC 6585 §4). By
 * address, an IPv6 client counts as its /64. By principal, the step must run after
 * authentication; placed before it, it fails loudly rather than limit nobody.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const buckets = new TokenBuckets({
    burst: options.burst,
    perSecond: options.perSecond,
    ...(options.maxKeys !== undefined && { maxKeys: options.maxKeys }),
    ...(options.now !== undefined && { now: options.now }),
    ...(options.share !== undefined && { share: options.share }),
  });
  // Addresses' buckets by address: working one out parses the address, per request otherwise.
  const addressKeys = new BoundedMemo<string>(1024);
  const addressKey = (address: string): string =>
    addressKeys.get(address) ?? addressKeys.remember(address, rateLimitKey(address));
  const keyOf = (ctx: GatewayContext): string => {
    if (options.by === 'ip') return addressKey(ctx.remoteAddress);
    if (ctx.principal === undefined) throw new Error('The principal rate limit runs before authentication.');
    return `${ctx.principal.kind}:${ctx.principal.id}`;
  };
  const whose = options.by === 'ip' ? 'this address' : 'this principal';
  const exempt = options.exempt;
  return (ctx, next) => {
    if (exempt?.(ctx.head)) return next();
    const result = buckets.take(keyOf(ctx));
    if (!result.ok) {
      countRateLimited(options.by);
      throw new HttpError(
        429,
        `Too many requests from ${whose}. Retry after ${result.retryAfterSeconds} s.`,
        { headers: { 'Retry-After': String(result.retryAfterSeconds) } },
      );
    }
    return next();
  };
}
