import { auth, validateAuthorizationResponseIssuer } from '@modelcontextprotocol/client';
import { authFailed, toAuthError } from './auth-errors.js';
import { parseAuthorizationResponse, sameState } from './auth-state.js';
import type { StoredCredentials } from './credential-store.js';
import { storedDiscovery } from './discovery.js';
import type { ProviderContext, StoreBackedOAuthProvider } from './oauth-provider.js';

/**
 * The second half of an authorization-code login: the redirect the browser came back to is
 * checked before anything is sent. The SDK neither checks `state` nor keeps the login's
 * record across processes; here the `state` must match a login started for this server (the
 * pending record in the credential store, from any process, at most 15 minutes old), `iss`
 * must be the recorded issuer (RFC 9207) before the response's error text is trusted, and the
 * login is consumed before its code leaves: a replayed redirect finds nothing.
 */

/** A login left unfinished this long is not completed any more. */
export const PENDING_LOGIN_TTL_MS = 15 * 60_000;

/** Validates `redirectUrl` against the pending login and exchanges its code through `auth()`. */
export async function completeLogin(
  ctx: ProviderContext,
  provider: StoreBackedOAuthProvider,
  serverUrl: string,
  redirectUrl: string | URL,
): Promise<void> {
  const { server, settings, store } = ctx;
  const response = parseAuthorizationResponse(String(redirectUrl), settings.redirectUri);
  if (!response) {
    throw authFailed(
      server,
      'bad_redirect',
      `the redirect does not go to ${settings.redirectUri}; it was ignored.`,
    );
  }
  const match = await findPending(ctx, response.state);
  if (!match) {
    throw authFailed(
      server,
      'state_mismatch',
      'the authorization response matches no login started here (state mismatch, or the login expired); its code was not used. Start the login again.',
    );
  }
  const { issuer } = match;
  const discovery = storedDiscovery(match.creds);
  if (!discovery)
    throw authFailed(server, 'discovery_failed', 'the login has no discovery record; start it again.');
  ctx.discovery = discovery;
  try {
    validateAuthorizationResponseIssuer({
      iss: response.iss,
      expectedIssuer: discovery.metadata?.issuer,
      issParameterSupported: discovery.metadata?.authorization_response_iss_parameter_supported === true,
    });
    await store.withLock(server, issuer, async () => {
      const { pending: _used, ...rest } = (await store.load(server, issuer)) ?? {};
      await store.save(server, issuer, rest);
    });
    if (response.error !== undefined) {
      throw authFailed(
        server,
        'oauth_error',
        `the authorization server refused the login ("${response.error}"). Start it again.`,
        { details: { oauthError: response.error } },
      );
    }
    if (response.code === undefined) {
      throw authFailed(
        server,
        'bad_redirect',
        'the redirect carries no authorization code. Start the login again.',
      );
    }
    provider.useCodeVerifier(match.codeVerifier);
    const result = await auth(provider, {
      serverUrl,
      authorizationCode: response.code,
      ...(response.iss !== undefined && { iss: response.iss }),
      fetchFn: ctx.fetch,
    });
    if (result !== 'AUTHORIZED') throw new Error(`the code exchange ended with ${result}`);
  } catch (error) {
    throw toAuthError(error, server);
  }
}

async function findPending(
  ctx: ProviderContext,
  state: string | undefined,
): Promise<{ issuer: string; creds: StoredCredentials; codeVerifier: string } | undefined> {
  if (state === undefined) return undefined;
  for (const issuer of await ctx.store.issuers(ctx.server)) {
    const creds = await ctx.store.load(ctx.server, issuer);
    const pending = creds?.pending;
    if (!creds || !pending || !sameState(pending.state, state)) continue;
    if (ctx.now() - pending.startedAt > PENDING_LOGIN_TTL_MS) return undefined;
    return { issuer, creds, codeVerifier: pending.codeVerifier };
  }
  return undefined;
}
