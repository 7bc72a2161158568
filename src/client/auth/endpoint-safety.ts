import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../../core/errors.js';
import { authFailed } from './auth-errors.js';

/**
 * Where credentials may go. Pure checks, run on discovery results before anything secret is
 * sent:
 *  - every authorization server URL is https, except on a loopback host (RFC 8252 §7.3; the
 *    MCP authorization spec requires https for authorization server endpoints);
 *  - the authorization, token and registration endpoints are on the issuer's origin, so the
 *    authorization code, the PKCE verifier and client secrets never reach another origin even
 *    when the metadata document itself is poisoned.
 */

/** Loopback hosts, where plain http stays on the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(host)
  );
}

/** The URL if it is https or loopback http; an AUTH_FAILED error otherwise. */
export function secureUrl(server: string, value: string, what: string): URL | SwitchboardError {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return authFailed(server, 'discovery_failed', `${what} "${value}" is not a URL.`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url;
  return authFailed(
    server,
    'insecure_endpoint',
    `${what} ${url.href} is not https; OAuth endpoints must use https (only loopback hosts may use http). Nothing was sent to it.`,
    { details: { endpoint: url.href } },
  );
}

/**
 * Checks the endpoints of authorization server metadata against its issuer: secure, and on
 * the issuer's origin. Returns the first violation, or undefined when all hold.
 */
export function checkMetadataEndpoints(
  server: string,
  issuer: string,
  metadata: Pick<AuthorizationServerMetadata, 'authorization_endpoint' | 'token_endpoint'> & {
    readonly registration_endpoint?: string | undefined;
  },
): SwitchboardError | undefined {
  const origin = secureUrl(server, issuer, 'The issuer');
  if (!(origin instanceof URL)) return origin;
  const endpoints: [string, string | undefined][] = [
    ['authorization_endpoint', metadata.authorization_endpoint],
    ['token_endpoint', metadata.token_endpoint],
    ['registration_endpoint', metadata.registration_endpoint],
  ];
  for (const [name, value] of endpoints) {
    if (value === undefined) continue;
    const url = secureUrl(server, value, `The ${name}`);
    if (!(url instanceof URL)) return url;
    if (url.origin !== origin.origin) {
      return authFailed(
        server,
        'cross_origin_endpoint',
        `the ${name} ${url.href} is not on the issuer's origin ${origin.origin}; the authorization server metadata was refused and nothing was sent.`,
        { details: { endpoint: url.href, issuer } },
      );
    }
  }
  return undefined;
}
