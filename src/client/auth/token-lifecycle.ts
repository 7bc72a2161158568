import type { OAuthTokens } from '@modelcontextprotocol/client';
import type { StoredTokens } from './credential-store.js';

/**
 * When tokens are good, due for a refresh, or spent. Pure, with the clock passed in. The SDK
 * sends an access token until the server answers 401 (SDK #1954); we refresh it ahead of
 * expiry instead, so a request is not first refused and then retried.
 */

/** Refresh this long before the access token expires (clock skew, request latency). */
export const REFRESH_SKEW_MS = 60_000;

/** fresh: use it; refresh: get a new one first (but it still works); expired: do not send it. */
export type TokenState = 'fresh' | 'refresh' | 'expired';

/** Tokens as the token endpoint returned them, stamped with when they were obtained and expire. */
export function toStoredTokens(
  tokens: OAuthTokens,
  now: number,
  options: { requestedScope?: string; previous?: StoredTokens } = {},
): StoredTokens {
  const { issuer: _issuer, ...wire } = tokens as OAuthTokens & { issuer?: string };
  // RFC 6749 §5.1: `scope` may be omitted when it is what was asked; §6: a refresh without a
  // new refresh token keeps the old one.
  const scope = wire.scope ?? options.requestedScope ?? options.previous?.scope;
  const refreshToken = wire.refresh_token ?? options.previous?.refresh_token;
  return {
    ...wire,
    ...(scope !== undefined && { scope }),
    ...(refreshToken !== undefined && { refresh_token: refreshToken }),
    obtainedAt: now,
    ...(wire.expires_in !== undefined && { expiresAt: now + wire.expires_in * 1000 }),
  };
}

/** The state of stored tokens at `now`. Tokens without an expiry are fresh until refused. */
export function tokenState(tokens: StoredTokens, now: number, skewMs = REFRESH_SKEW_MS): TokenState {
  if (tokens.expiresAt === undefined) return 'fresh';
  if (now >= tokens.expiresAt) return 'expired';
  return now >= tokens.expiresAt - skewMs ? 'refresh' : 'fresh';
}
