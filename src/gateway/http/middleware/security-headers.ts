import type { Middleware } from '../context.js';
import { headerList, withHeaders } from '../response-headers.js';

/**
 * The headers every gateway response carries. Nothing the gateway sends is meant to be
 * cached, sniffed as another type, framed, or to leak the URL in a Referer; the CSP makes any
 * HTML a response might hold inert (no scripts, styles, frames, forms or base URL).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Content-Security-Policy':
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

const { 'Content-Security-Policy': DEFAULT_CSP, ...fixed } = SECURITY_HEADERS;
const FIXED_HEADERS = headerList(fixed);
const CSP_HEADER = headerList({ 'Content-Security-Policy': DEFAULT_CSP! });

/**
 * Sets the security headers on `response`, replacing any of the same name — except a
 * Content-Security-Policy the response already has: the dashboard's pages and saved media
 * set their own (as strict as they can be), and only they know what they load.
 */
export function applySecurityHeaders(response: Response): Response {
  return withHeaders(withHeaders(response, FIXED_HEADERS), CSP_HEADER, { overwrite: false });
}

/** Adds the security headers to whatever the rest of the chain answers. */
export function securityHeaders(): Middleware {
  return (_ctx, next) => next().then(applySecurityHeaders);
}
