import type { FetchLike } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import { authFailed } from './auth-errors.js';

/**
 * A headless stand-in for the browser, for tests and conformance runs against authorization
 * servers that approve without a person: fetches the authorization URL without following
 * redirects and follows `Location` headers itself until one points at `redirectUri`, which it
 * returns (with its `code`, `state` and `iss`) without fetching it. A page that does not
 * redirect needs a person, and fails.
 */
export interface RedirectDriverOptions {
  /** Where the authorization server sends the browser back. */
  readonly redirectUri: string;
  readonly fetch?: FetchLike;
  /** Most redirects followed. Default 10. */
  readonly maxRedirects?: number;
  /** For errors. Default "(headless)". */
  readonly server?: string;
}

/** Follows the authorization URL's redirects to `redirectUri` and returns that URL. */
export async function followAuthorizationRedirects(
  authorizationUrl: string | URL,
  options: RedirectDriverOptions,
): Promise<string> {
  const fetchFn = options.fetch ?? ((url, init) => fetch(url, init));
  const server = options.server ?? '(headless)';
  const target = new URL(options.redirectUri);
  let current = new URL(authorizationUrl);
  const limit = options.maxRedirects ?? 10;
  for (let hop = 0; hop <= limit; hop++) {
    let response: Response;
    try {
      response = await fetchFn(current, { redirect: 'manual' });
    } catch (error) {
      throw authFailed(
        server,
        'bad_redirect',
        `cannot fetch ${current.origin}${current.pathname}: ${describeError(error)}.`,
        {
          cause: error,
        },
      );
    }
    await response.body?.cancel().catch(() => undefined);
    const location =
      response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (location === null) {
      throw authFailed(
        server,
        'bad_redirect',
        `${current.origin}${current.pathname} answered HTTP ${response.status} instead of redirecting: a person has to log in there.`,
        { details: { status: response.status } },
      );
    }
    const next = new URL(location, current);
    if (next.origin === target.origin && next.pathname === target.pathname) return next.href;
    current = next;
  }
  throw authFailed(server, 'bad_redirect', `more than ${limit} redirects without reaching ${target.href}.`);
}
