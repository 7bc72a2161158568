import {
  buildDiscoveryUrls,
  checkResourceAllowed,
  type FetchLike,
  LATEST_PROTOCOL_VERSION,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  resourceUrlFromServerUrl,
} from '@modelcontextprotocol/client';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/core';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { authFailed } from './auth-errors.js';
import { checkMetadataEndpoints, secureUrl } from './endpoint-safety.js';

/**
 * Finds the authorization server of an MCP server and validates what it finds before any
 * credential moves. Our own instead of the SDK's `discoverOAuthServerInfo` because that one:
 *  - parses every `openid-configuration` document as OIDC, so plain RFC 8414 metadata served
 *    there is rejected (SDK #2733) — here every document is parsed as RFC 8414, which a valid
 *    OIDC document also satisfies;
 *  - accepts metadata whose endpoints sit on other origins than the issuer, and does not check
 *    the resource metadata's `resource` until after registration;
 *  - throws one generic Error for "no resource metadata" and for real failures.
 * Order (MCP authorization spec, "Authorization Server Discovery"): protected resource metadata
 * (RFC 9728) from the `WWW-Authenticate` URL, else the path-based, else the root well-known
 * URL; its `resource` must name this server; then authorization server metadata (RFC 8414 /
 * OIDC Discovery, the SDK's URL order) whose `issuer` must be the URL it was built from.
 * Without resource metadata (2025-03-26 servers) the server's origin is the authorization
 * server, with default endpoints when it publishes no metadata either.
 */

/** What discovery found, validated. Persisted with the credentials for later refreshes. */
export interface AuthorizationDiscovery {
  readonly resourceMetadataUrl?: string;
  readonly resourceMetadata?: OAuthProtectedResourceMetadata;
  /** The authorization server URL as the resource metadata names it (or the server's origin). */
  readonly authorizationServerUrl: string;
  readonly metadata?: OAuthMetadata;
  /** The issuer credentials are kept under: the metadata's `issuer`, else the URL above. */
  readonly issuer: string;
  /** No resource metadata: the 2025-03-26 flow. */
  readonly legacy: boolean;
  /**
   * The resource server wants DPoP-bound tokens: it challenged with the DPoP scheme, or its
   * metadata says `dpop_bound_access_tokens_required` (RFC 9449 §5.2).
   */
  readonly dpopRequired?: boolean;
}

export interface DiscoveryOptions {
  /** The server's name, for errors. */
  readonly server: string;
  readonly serverUrl: string;
  /** `resource_metadata` from a `WWW-Authenticate` challenge. */
  readonly resourceMetadataUrl?: string;
  /** Use this authorization server (a pre-registered client's); refuse if the server does not list it. */
  readonly issuer?: string;
  /** The resource server's 401 used the DPoP scheme. */
  readonly dpopChallenged?: boolean;
  readonly fetch: FetchLike;
}

/** Runs discovery; throws AUTH_FAILED when a check fails. */
export async function discoverAuthorization(options: DiscoveryOptions): Promise<AuthorizationDiscovery> {
  const { server, serverUrl } = options;
  const found = await fetchResourceMetadata(options);
  if (found) {
    const expected = resourceUrlFromServerUrl(serverUrl);
    if (!sameResource(expected, found.metadata.resource)) {
      throw authFailed(
        server,
        'resource_mismatch',
        `its protected resource metadata is for ${found.metadata.resource}, not ${expected.href}; authorization was refused (RFC 9728 §3.3).`,
        { details: { resource: found.metadata.resource } },
      );
    }
  }
  const listed = found?.metadata.authorization_servers ?? [];
  const chosen = chooseAuthorizationServer(server, listed, options.issuer);
  const legacy = chosen === undefined;
  const authorizationServerUrl = chosen ?? new URL('/', serverUrl).href;
  const asUrl = secureUrl(server, authorizationServerUrl, 'The authorization server');
  if (asUrl instanceof SwitchboardError) throw asUrl;
  const metadata = await fetchServerMetadata(server, authorizationServerUrl, legacy, options.fetch);
  const issuer = metadata?.issuer ?? authorizationServerUrl;
  if (metadata) {
    const unsafe = checkMetadataEndpoints(server, issuer, metadata);
    if (unsafe) throw unsafe;
  }
  return {
    ...(found && { resourceMetadataUrl: found.url, resourceMetadata: found.metadata }),
    authorizationServerUrl,
    ...(metadata && { metadata }),
    issuer,
    legacy,
    ...((options.dpopChallenged ||
      (found?.metadata as { dpop_bound_access_tokens_required?: unknown } | undefined)
        ?.dpop_bound_access_tokens_required === true) && { dpopRequired: true }),
  };
}

/** The discovery record kept with stored credentials, if it has the shape we wrote. */
export function storedDiscovery(
  creds: { readonly discovery?: unknown } | undefined,
): AuthorizationDiscovery | undefined {
  const d = creds?.discovery as Partial<AuthorizationDiscovery> | undefined;
  return typeof d?.issuer === 'string' && typeof d.authorizationServerUrl === 'string'
    ? (d as AuthorizationDiscovery)
    : undefined;
}

/** Whether two issuer identifiers are the same, allowing one trailing-slash difference (RFC 8414 §3.3). */
export function sameIssuer(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

/** RFC 8707 / MCP "Canonical Server URI": the resource names this server or a path above it, same origin. */
function sameResource(expected: URL, resource: string): boolean {
  try {
    return checkResourceAllowed({ requestedResource: expected, configuredResource: resource });
  } catch {
    return false;
  }
}

function chooseAuthorizationServer(
  server: string,
  listed: readonly string[],
  wanted: string | undefined,
): string | undefined {
  if (wanted === undefined || listed.length === 0) return listed[0];
  const match = listed.find((candidate) => sameIssuer(candidate, wanted));
  if (match !== undefined) return match;
  throw authFailed(
    server,
    'issuer_not_allowed',
    `the configured client belongs to ${wanted}, but the server uses ${listed.join(', ')}; its credentials were not sent. Fix "auth.issuer" or the client registration.`,
    { details: { issuer: wanted, listed: [...listed] } },
  );
}

async function fetchResourceMetadata(
  options: DiscoveryOptions,
): Promise<{ url: string; metadata: OAuthProtectedResourceMetadata } | undefined> {
  const base = new URL(options.serverUrl);
  const path = base.pathname.replace(/\/$/, '');
  const candidates = [
    options.resourceMetadataUrl,
    path ? `${base.origin}/.well-known/oauth-protected-resource${path}${base.search}` : undefined,
    `${base.origin}/.well-known/oauth-protected-resource`,
  ].filter((u): u is string => u !== undefined);
  for (const url of new Set(candidates)) {
    const response = await get(options.server, url, options.fetch);
    if (!response) continue;
    const parsed = OAuthProtectedResourceMetadataSchema.safeParse(await json(options.server, url, response));
    if (!parsed.success) {
      throw authFailed(
        options.server,
        'discovery_failed',
        `the protected resource metadata at ${url} is malformed.`,
      );
    }
    return { url, metadata: parsed.data };
  }
  return undefined;
}

async function fetchServerMetadata(
  server: string,
  authorizationServerUrl: string,
  legacy: boolean,
  fetchFn: FetchLike,
): Promise<OAuthMetadata | undefined> {
  for (const { url } of buildDiscoveryUrls(authorizationServerUrl)) {
    const response = await get(server, url.href, fetchFn);
    if (!response) continue;
    const parsed = OAuthMetadataSchema.safeParse(await json(server, url.href, response));
    if (!parsed.success) {
      throw authFailed(
        server,
        'discovery_failed',
        `the authorization server metadata at ${url.href} is malformed.`,
      );
    }
    const issuer = parsed.data.issuer;
    // A 2025-03-26 server (no resource metadata) publishes its metadata at its own root, and
    // some name an issuer with a path there; the same origin is what vouches for it then.
    const accepted = sameIssuer(issuer, authorizationServerUrl) || (legacy && sameOrigin(issuer, url));
    if (!accepted) {
      throw authFailed(
        server,
        'issuer_mismatch',
        `the authorization server metadata at ${url.href} names issuer ${issuer}, not ${authorizationServerUrl}; it was refused (RFC 8414 §3.3) and nothing was sent.`,
        { details: { issuer, expected: authorizationServerUrl } },
      );
    }
    return parsed.data;
  }
  return undefined;
}

/** GETs a metadata document: the response when 200, undefined when absent (4xx, 502). */
async function get(server: string, url: string, fetchFn: FetchLike): Promise<Response | undefined> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      headers: { Accept: 'application/json', 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION },
    });
  } catch (error) {
    // The network policy refused the URL the server handed us: that answer stands as it is.
    if (isSwitchboardError(error, 'POLICY_DENIED')) throw error;
    throw authFailed(server, 'unreachable', `cannot fetch ${url}: ${describeError(error)}. Retry later.`, {
      cause: error,
    });
  }
  if (response.ok) return response;
  await response.body?.cancel().catch(() => undefined);
  if (response.status < 500 || response.status === 502) return undefined;
  throw authFailed(server, 'unreachable', `${url} answered HTTP ${response.status}; retry later.`, {
    details: { status: response.status },
  });
}

async function json(server: string, url: string, response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch (error) {
    throw authFailed(server, 'discovery_failed', `${url} did not answer JSON.`, { cause: error });
  }
}

function sameOrigin(a: string, b: URL): boolean {
  try {
    return new URL(a).origin === b.origin;
  } catch {
    return false;
  }
}
