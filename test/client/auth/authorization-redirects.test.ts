import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { followAuthorizationRedirects } from '../../../src/client/auth/authorization-redirects.js';
import { rejection } from '../../helpers/rejection.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function start(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const REDIRECT = 'http://127.0.0.1:33418/oauth/callback';

describe('followAuthorizationRedirects', () => {
  it('follows Location headers until the redirect URI and returns it unfetched', async () => {
    const base = await start((req, res) => {
      if (req.url?.startsWith('/authorize')) res.writeHead(302, { location: '/consent?x=1' }).end();
      else res.writeHead(303, { location: `${REDIRECT}?code=c1&state=s1` }).end();
    });
    expect(await followAuthorizationRedirects(`${base}/authorize?a=b`, { redirectUri: REDIRECT })).toBe(
      `${REDIRECT}?code=c1&state=s1`,
    );
  });

  it('fails when a page needs a person, or the redirects never end', async () => {
    const base = await start((req, res) => {
      if (req.url === '/login') res.writeHead(200, { 'content-type': 'text/html' }).end('<form>');
      else res.writeHead(302, { location: '/loop' }).end();
    });
    const page = await rejection(followAuthorizationRedirects(`${base}/login`, { redirectUri: REDIRECT }));
    expect(page.details).toMatchObject({ reason: 'bad_redirect', status: 200 });
    const loop = await rejection(
      followAuthorizationRedirects(`${base}/loop`, { redirectUri: REDIRECT, maxRedirects: 3 }),
    );
    expect(loop.message).toMatch(/more than 3 redirects/);
  });
});
