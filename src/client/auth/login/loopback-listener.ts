import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../../../core/errors.js';
import { DEFAULT_REDIRECT_URI } from '../oauth-settings.js';

/**
 * The redirect target of an interactive login: an HTTP listener on 127.0.0.1 at a random port
 * (RFC 8252 §7.3, loopback redirects for native apps), which waits for the authorization
 * server to send the browser back with `code` (or `error`) and answers with a page saying the
 * tab can be closed. Only that one path is served; anything else gets 404.
 */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/oauth/callback`. */
  readonly redirectUri: string;
  /** Resolves with the full redirect URL the browser arrived at. */
  readonly redirect: Promise<URL>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title>` +
  `<body style="font-family:system-ui;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

export async function startLoopbackListener(
  options: { readonly path?: string; readonly signal?: AbortSignal } = {},
): Promise<LoopbackListener> {
  // The path of DEFAULT_REDIRECT_URI: a client registered by a login on one port is then the
  // same registration for a login on another (RFC 8252 §7.3 lets the port vary, not the path).
  const path = options.path ?? new URL(DEFAULT_REDIRECT_URI).pathname;
  let resolve!: (url: URL) => void;
  let reject!: (error: unknown) => void;
  const redirect = new Promise<URL>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Unhandled if nobody waits (the paste path won): not an error.
  redirect.catch(() => undefined);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const failed = url.searchParams.get('error');
    const done = failed === null && url.searchParams.has('code');
    res
      .writeHead(done ? 200 : 400, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      })
      .end(
        done
          ? PAGE('Signed in', 'Switchboard has the authorization. You can close this tab.')
          : PAGE('Sign-in failed', 'The authorization server did not grant access. Return to the terminal.'),
      );
    const port = (server.address() as AddressInfo).port;
    resolve(new URL(`http://127.0.0.1:${port}${req.url ?? '/'}`));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const onAbort = () =>
    reject(
      new SwitchboardError('REQUEST_CANCELLED', 'The login was cancelled before the browser came back.'),
    );
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    redirect,
    close: () =>
      new Promise<void>((done) => {
        options.signal?.removeEventListener('abort', onAbort);
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
