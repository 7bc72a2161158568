import { type LocalCredential, localCookieName } from './auth/local-token.js';

/**
 * The dashboard's way in when the gateway runs without configured authentication: the URL
 * `switchboard start` prints and opens carries the local token once (`/ui/?token=…`), and
 * this answers it with a cookie and a redirect to the same page without the token — what
 * notebook servers (Jupyter) do with their `?token=` links. A cookie rather than a token kept
 * by the page (`#token=` in sessionStorage): HttpOnly keeps it from every script in the page,
 * the browser sends it with every request the page makes, images and media included, and it
 * lasts across reloads and tabs until the browser closes; SameSite=Strict keeps other sites
 * from making the browser send it (the API's CSRF header is still asked of state-changing
 * requests). The redirect takes the token out of the address bar and the page's URL, and the
 * access log records paths without their query, so it is not kept there either.
 */

/** The answer to a dashboard request that carries `?token=`, or undefined when it carries none. */
export function localLogin(
  request: Request,
  credential: LocalCredential,
  port: number,
): Response | undefined {
  const url = new URL(request.url);
  const token = url.searchParams.get('token');
  if (token === null) return undefined;
  if (!credential.matches(token)) {
    return new Response(
      `This link's token is not this gateway's local token. The token is in ${credential.where}; ` +
        'open the dashboard with the link "switchboard start" printed, or paste the token when the page asks.\n',
      { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } },
    );
  }
  url.searchParams.delete('token');
  return new Response(null, {
    status: 303,
    headers: {
      location: `${url.pathname}${url.search}`,
      'set-cookie': `${localCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`,
      'cache-control': 'no-store',
    },
  });
}
