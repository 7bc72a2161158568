import { OAuthError, refreshAuthorization } from '@modelcontextprotocol/client';
import type { StoredCredentials, StoredTokens } from './credential-store.js';
import type { AuthorizationDiscovery } from './discovery.js';
import type { ProviderContext, StoreBackedOAuthProvider } from './oauth-provider.js';
import { toStoredTokens } from './token-lifecycle.js';

/**
 * One refresh of stored tokens (RFC 6749 §6), under the credential store's lock for this
 * server and authorization server: whoever holds the lock re-reads the tokens first, so a
 * refresh someone else just did (another request, another process) is used, not repeated.
 * That matters with rotating refresh tokens: replaying a spent one gets the whole grant
 * revoked at some providers. The new tokens (with the rotated refresh token) replace the old
 * in one atomic save.
 */

/** What came of a refresh. */
export type RefreshOutcome =
  /** New tokens (ours or someone else's). */
  | { readonly kind: 'refreshed'; readonly tokens: StoredTokens }
  /** The grant is gone (`invalid_grant`): the tokens were deleted, a login is needed. */
  | { readonly kind: 'rejected'; readonly error: OAuthError }
  /** Nothing to refresh with (no refresh token, or no client any more). */
  | { readonly kind: 'unavailable' };

/**
 * Refreshes the tokens of `ctx.server` at `discovery.issuer` unless the access token stored
 * is no longer `stale` (someone refreshed it already). Other failures (network, server
 * errors) are thrown and the tokens kept.
 */
export function refreshTokens(
  ctx: ProviderContext,
  provider: StoreBackedOAuthProvider,
  discovery: AuthorizationDiscovery,
  stale: string,
): Promise<RefreshOutcome> {
  const { store, server } = ctx;
  const issuer = discovery.issuer;
  return store.withLock(server, issuer, async () => {
    const creds: StoredCredentials = (await store.load(server, issuer)) ?? {};
    const tokens = creds.tokens;
    if (tokens && tokens.access_token !== stale) return { kind: 'refreshed', tokens };
    if (!tokens?.refresh_token) return { kind: 'unavailable' };
    const client = await provider.clientForRefresh(issuer);
    if (!client) return { kind: 'unavailable' };
    const dpop = await provider.dpop();
    try {
      const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.metadata && { metadata: discovery.metadata }),
        clientInformation: client,
        refreshToken: tokens.refresh_token,
        // RFC 8707: the resource exactly as the protected resource metadata names it.
        ...(discovery.resourceMetadata && { resource: discovery.resourceMetadata.resource }),
        ...(provider.addClientAuthentication && {
          addClientAuthentication: provider.addClientAuthentication,
        }),
        ...(dpop && { dpop }),
        fetchFn: ctx.fetch,
      });
      const stored = toStoredTokens(fresh, ctx.now(), { previous: tokens });
      const bound =
        fresh.token_type.toLowerCase() === 'dpop' && dpop ? { ...stored, dpop_jkt: dpop.thumbprint } : stored;
      await store.save(server, issuer, { ...creds, tokens: bound });
      return { kind: 'refreshed', tokens: bound };
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_grant') {
        const { tokens: _gone, ...rest } = creds;
        await store.save(server, issuer, rest);
        return { kind: 'rejected', error };
      }
      throw error;
    }
  });
}
