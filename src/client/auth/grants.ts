import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  discoverAndRequestJwtAuthGrant,
  type FetchLike,
  fetchToken,
  OAuthError,
  type OAuthTokens,
  requestJwtAuthorizationGrant,
} from '@modelcontextprotocol/client';
import { authFailed } from './auth-errors.js';
import type { ProviderContext, StoreBackedOAuthProvider } from './oauth-provider.js';
import type { OAuthSettings } from './oauth-settings.js';

/**
 * The grant-specific parts of a token request, for the SDK's `fetchToken` (through
 * `OAuthClientProvider.prepareTokenRequest`) and client authentication. The SDK ships
 * providers for these grants (ClientCredentialsProvider, PrivateKeyJwtProvider,
 * CrossAppAccessProvider), but they keep tokens in memory only; here the same SDK building
 * blocks (`createPrivateKeyJwtAuth`, `requestJwtAuthorizationGrant`) serve our store-backed
 * provider.
 */

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** What an assertion grant needs to know about the server it is for. */
export interface GrantTarget {
  /** The authorization server's issuer: the audience of the ID-JAG (SEP-990). */
  readonly issuer: string;
  /** The resource as the protected resource metadata names it. */
  readonly resource?: string;
  readonly fetch: FetchLike;
}

/** The `grant_types` to register for `settings`. */
export function grantTypes(settings: OAuthSettings): string[] {
  switch (settings.grant) {
    case 'client_credentials':
      return ['client_credentials'];
    case 'jwt_bearer':
      return [JWT_BEARER_GRANT];
    default:
      // SEP-2207: register refresh_token so that servers which gate refresh tokens on it issue one.
      return ['authorization_code', 'refresh_token'];
  }
}

/**
 * The body of a token request for a machine grant, or undefined for `authorization_code`
 * (the SDK then sends the code and PKCE verifier).
 */
export async function machineGrantRequest(
  settings: OAuthSettings,
  target: GrantTarget,
  scope: string | undefined,
): Promise<URLSearchParams | undefined> {
  if (settings.grant === 'authorization_code') return undefined;
  const params =
    settings.grant === 'client_credentials'
      ? new URLSearchParams({ grant_type: 'client_credentials' })
      : new URLSearchParams({
          grant_type: JWT_BEARER_GRANT,
          assertion: await assertionFor(settings, target, scope),
        });
  if (scope) params.set('scope', scope);
  return params;
}

/** `private_key_jwt` client authentication (RFC 7523 §2.2), when a private key is configured. */
export function privateKeyJwtAuth(settings: OAuthSettings): AddClientAuthentication | undefined {
  const { privateKey, clientId } = settings;
  if (!privateKey || clientId === undefined || settings.tokenEndpointAuthMethod !== 'private_key_jwt') {
    return undefined;
  }
  return async (headers, params, url, metadata) => {
    const sign = createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey: await privateKey(),
      alg: settings.signingAlgorithm,
    });
    await sign(headers, params, url, metadata);
  };
}

/** The JWT for the jwt-bearer grant: the workload's own, or an ID-JAG from the enterprise IdP. */
async function assertionFor(
  settings: OAuthSettings,
  target: GrantTarget,
  scope: string | undefined,
): Promise<string> {
  if (settings.assertion) return settings.assertion();
  const idp = settings.idp;
  // The config schema already requires one of them; this guards programmatic settings.
  if (!idp)
    throw new Error('grant "jwt_bearer" needs "assertion", "assertionFile" or "idp" in the entry\'s auth');
  if (target.resource === undefined) {
    throw new Error(
      'the server publishes no protected resource metadata (RFC 9728), which enterprise-managed authorization needs to name the resource; use "assertion" instead of "idp" for this server, or ask its operator to publish the metadata',
    );
  }
  const common = {
    audience: target.issuer,
    resource: target.resource,
    idToken: await idp.idToken(),
    clientId: idp.clientId,
    ...(idp.clientSecret !== undefined && { clientSecret: idp.clientSecret }),
    ...(scope && { scope }),
    fetchFn: target.fetch,
  };
  const result =
    idp.tokenEndpoint !== undefined
      ? await requestJwtAuthorizationGrant({ ...common, tokenEndpoint: idp.tokenEndpoint })
      : await discoverAndRequestJwtAuthGrant({ ...common, idpUrl: idp.issuer as string });
  return result.jwtAuthGrant;
}

/**
 * One token request for a machine grant, through the SDK's `fetchToken` rather than `auth()`:
 * `auth()` retries once after `invalid_grant` or `invalid_client`, and a rejected assertion or
 * client secret must be reported, not sent again (SEP-1933). The tokens are stored.
 */
export async function machineGrant(
  ctx: ProviderContext,
  provider: StoreBackedOAuthProvider,
  scope: string | undefined,
): Promise<void> {
  const d = ctx.discovery;
  if (!d) throw new Error('OAuth discovery has not run for this server');
  let tokens: OAuthTokens;
  try {
    tokens = await fetchToken(provider, d.authorizationServerUrl, {
      ...(d.metadata && { metadata: d.metadata }),
      ...(d.resourceMetadata && { resource: d.resourceMetadata.resource }),
      ...(scope !== undefined && { scope }),
      fetchFn: ctx.fetch,
    });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    throw authFailed(
      ctx.server,
      'oauth_error',
      `the authorization server refused the ${ctx.settings.grant} grant ("${error.code}": ${error.message}). Check the client credentials or assertion of this server.`,
      { cause: error, details: { oauthError: error.code } },
    );
  }
  await provider.saveTokens({ ...tokens, issuer: d.issuer }, { issuer: d.issuer });
}
