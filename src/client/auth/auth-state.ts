import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The `state` of an authorization request and the parsing of the redirect that answers it.
 * The SDK sends a provider's `state` but never checks it on the way back; the check is ours
 * (RFC 6749 §10.12, OAuth 2.1 §7.12: state binds the response to the request, so a code
 * injected into someone's redirect is never exchanged).
 */

/** A fresh, unguessable `state`: 32 random bytes, base64url. */
export function newState(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two states in constant time. */
export function sameState(expected: string, received: string | undefined): boolean {
  if (received === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The parameters of an authorization response (RFC 6749 §4.1.2, RFC 9207). */
export interface AuthorizationResponse {
  readonly state?: string;
  readonly code?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly errorDescription?: string;
}

/**
 * Parses the redirect URL the browser came back to. Undefined when it is not a URL or does not
 * go to `redirectUri` (same origin and path): such a URL is not an answer to our request.
 */
export function parseAuthorizationResponse(
  redirectUrl: string,
  redirectUri: string,
): AuthorizationResponse | undefined {
  let url: URL;
  let expected: URL;
  try {
    url = new URL(redirectUrl);
    expected = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (url.origin !== expected.origin || url.pathname !== expected.pathname) return undefined;
  const get = (name: string) => url.searchParams.get(name) ?? undefined;
  const state = get('state');
  const code = get('code');
  const iss = get('iss');
  const error = get('error');
  const errorDescription = get('error_description');
  return {
    ...(state !== undefined && { state }),
    ...(code !== undefined && { code }),
    ...(iss !== undefined && { iss }),
    ...(error !== undefined && { error }),
    ...(errorDescription !== undefined && { errorDescription }),
  };
}
