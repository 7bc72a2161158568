import {
  extractWWWAuthenticateParams,
  type FetchLike,
  withDpopFromProvider,
} from '@modelcontextprotocol/client';
import { authFailed } from './auth-errors.js';
import type { OAuthSession } from './oauth-session.js';
import { stepUpScope, withOfflineAccess } from './scopes.js';

/**
 * The fetch the MCP transport sends requests through when a server uses OAuth:
 *  - DPoP (RFC 9449): a `DPoP`-bound token goes out with the `DPoP` scheme and a fresh proof
 *    per request, and a `use_dpop_nonce` challenge is answered — the SDK's
 *    `withDpopFromProvider`, which its transport applies only to a provider it drives itself.
 *  - Step-up (SEP-2350): a `403` with `error="insufficient_scope"` re-authorizes with the union
 *    of the scopes asked before, held now and challenged, then sends the request again. The
 *    SDK's transport does this only for a provider whose 401 handling it owns; ours is the
 *    session's. It stops when the union adds nothing (asking again cannot help) and after
 *    `maxStepUps` re-authorizations of one request, failing AUTH_FAILED "insufficient_scope".
 */
export function oauthFetch(
  session: OAuthSession,
  next: FetchLike,
  options: { maxStepUps?: number } = {},
): FetchLike {
  const maxStepUps = options.maxStepUps ?? 2;
  const send = withDpopFromProvider(session.provider)(next);
  return async (url, init) => {
    let response = await send(url, init);
    for (let stepUps = 0; response.status === 403; stepUps++) {
      const challenge = extractWWWAuthenticateParams(response);
      if (challenge.error !== 'insufficient_scope') break;
      await response.body?.cancel().catch(() => undefined);
      const issuer = session.discovery?.issuer;
      const held = issuer === undefined ? undefined : (await session.provider.tokens({ issuer }))?.scope;
      const wider = stepUpScope(session.requestedScope, held, challenge.scope);
      if (wider === undefined || stepUps >= maxStepUps) {
        throw authFailed(
          session.server,
          'insufficient_scope',
          `the server refuses this request for lack of scope${challenge.scope ? ` "${challenge.scope}"` : ''}${
            wider === undefined
              ? ', which the login already asked for'
              : ` after ${stepUps} re-authorizations`
          }. Check what the account is allowed to do.`,
          { details: { requiredScope: challenge.scope } },
        );
      }
      const serverScopes = session.discovery?.metadata?.scopes_supported;
      await session.stepUp(
        withOfflineAccess(wider, serverScopes, session.provider.redirectUrl !== undefined) ?? wider,
        challenge.resourceMetadataUrl?.href,
      );
      const token = await session.accessToken();
      const headers = new Headers(init?.headers);
      if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
      response = await send(url, { ...init, headers });
    }
    return response;
  };
}
