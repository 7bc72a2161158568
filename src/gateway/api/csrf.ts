import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF protection for the API's state-changing requests. A page on another site can make a
 * browser send a request here with the browser's ambient credentials (a loopback address is
 * all `auth.mode: none` asks for), but it cannot read `GET /api/session`, so it cannot know
 * the token: an HMAC-SHA256 of the principal's id under a key made at random when the process
 * starts. Nothing is stored; a restart makes every token stale (the dashboard fetches a new one).
 * A request with an `Authorization` header needs no token: a browser never adds one on its own.
 */

/** The header that carries the token. */
export const CSRF_HEADER = 'X-Switchboard-CSRF';

/** Methods that change state and so need the token (RFC 9110 §9.2.1: the others are safe). */
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The CSRF tokens of one process. */
export interface Csrf {
  /** The token of `principalId` for this process. */
  token(principalId: string): string;
  /** Whether `request`, made by `principalId`, may go on: safe, authorized, or with the right token. */
  allows(request: Request, principalId: string): boolean;
}

/**
 * The CSRF key derived from Switchboard's secret key, so that gateways sharing
 * `SWITCHBOARD_SECRET_KEY` behind one load balancer accept each other's tokens.
 */
export function csrfKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'switchboard', 'dashboard csrf v1', 32));
}

/** CSRF tokens under `key` (default: 32 random bytes, made now). */
export function createCsrf(options: { readonly key?: Uint8Array } = {}): Csrf {
  const key = options.key ?? randomBytes(32);
  const token = (principalId: string) => createHmac('sha256', key).update(principalId).digest('base64url');
  return {
    token,
    allows(request, principalId) {
      if (!UNSAFE.has(request.method)) return true;
      if (request.headers.has('authorization')) return true;
      const sent = request.headers.get(CSRF_HEADER);
      if (sent === null) return false;
      const expected = Buffer.from(token(principalId));
      const given = Buffer.from(sent);
      // Compared in constant time, so the token cannot be guessed a character at a time.
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
