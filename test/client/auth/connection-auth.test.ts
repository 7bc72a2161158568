import { afterEach, describe, expect, it, vi } from 'vitest';
import { followAuthorizationRedirects } from '../../../src/client/auth/authorization-redirects.js';
import { MemoryCredentialStore } from '../../../src/client/auth/memory-credential-store.js';
import type { AuthorizationRequest } from '../../../src/client/auth/oauth-session.js';
import { Connection } from '../../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { rejection } from '../../helpers/rejection.js';
import {
  startAuthServer,
  startProtectedServer,
  type TestAuthServer,
  type TestProtectedServer,
} from './oauth-fixtures.js';

/** The OAuth client through a real Connection: the transport's seams, 401 and 403 handling. */

let as: TestAuthServer | undefined;
let rs: TestProtectedServer | undefined;
const open: Connection[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(open.splice(0).map((c) => c.close()));
  await rs?.close();
  await as?.close();
  rs = undefined;
  as = undefined;
});

function connect(
  url: string,
  auth: Record<string, unknown>,
  options: Partial<ConstructorParameters<typeof Connection>[0]> = {},
): Connection {
  const conn = new Connection({
    config: normalizeServerEntry({ name: 'demo', url, auth, timeouts: { connect: 10, request: 10 } }),
    eraStore: new MemoryEraVerdictStore(),
    ...options,
  });
  open.push(conn);
  return conn;
}

const headless = async ({ url, redirectUri }: AuthorizationRequest) =>
  followAuthorizationRedirects(url, { redirectUri });

/** A protected server whose tokens come from `as`; `scopes` says what each JSON-RPC method needs. */
async function oauthServers(scopes: (method: string | undefined) => string = () => 'mcp:read') {
  const server = await startAuthServer();
  as = server;
  rs = await startProtectedServer({
    authServer: server.issuer,
    scopesSupported: ['mcp:read'],
    check: (token, method) => {
      const granted = token === undefined ? undefined : server.tokens.get(token);
      if (!granted) return { missing: scopes(method) };
      const held = new Set((granted.scope ?? '').split(' '));
      const needed = scopes(method);
      return needed.split(' ').every((s) => held.has(s)) ? true : { missing: needed };
    },
  });
  return { as: server, rs };
}

describe('Connection with static credentials', () => {
  it('sends an api_key and a bearer token as Authorization: Bearer, interpolated', async () => {
    rs = await startProtectedServer({
      authServer: 'https://unused.example',
      check: (token) => (token === 'key-42' ? true : {}),
    });
    const conn = connect(rs.url, { type: 'api_key', key: '${DEMO_KEY}' }, { env: { DEMO_KEY: 'key-42' } });
    await conn.connect();
    expect((await conn.callTool('whoami')).text).toBe('hello');
    const bearer = connect(rs.url, { type: 'bearer', token: 'key-42' });
    await bearer.connect();
    expect(rs.authorizations.length).toBeGreaterThan(2);
    expect(new Set(rs.authorizations)).toEqual(new Set(['Bearer key-42']));
  });
});

describe('Connection with OAuth', () => {
  it('logs in when the server answers 401, then retries with the token', async () => {
    const { as, rs } = await oauthServers();
    const logins: string[] = [];
    const conn = connect(
      rs.url,
      { type: 'oauth', redirectUri: 'http://127.0.0.1:33418/oauth/callback' },
      {
        credentials: new MemoryCredentialStore(),
        onAuthorizationUrl: (request) => {
          logins.push(request.server);
          return headless(request);
        },
      },
    );
    await conn.connect();
    expect((await conn.callTool('whoami')).text).toBe('hello');
    expect(logins).toEqual(['demo']);
    expect(as.seen('/token', 'authorization_code')).toHaveLength(1);
    expect(rs.authorizations.at(-1)).toBe('Bearer at-1');
  });

  it('fails AUTH_REQUIRED without starting a login when nobody can complete one', async () => {
    const { as, rs } = await oauthServers();
    const store = new MemoryCredentialStore();
    const conn = connect(rs.url, { type: 'oauth' }, { credentials: store });
    const e = await rejection(conn.connect());
    expect(e.code).toBe('AUTH_REQUIRED');
    expect(e.details).toMatchObject({
      server: 'demo',
      command: 'switchboard auth demo',
      reason: 'login_required',
    });
    expect(conn.state).toBe('disconnected');
    expect(as.seen('/register')).toHaveLength(0);
    expect(as.seen('/authorize')).toHaveLength(0);
    expect((await store.load('demo', as.issuer))?.pending).toBeUndefined();
  });

  it('connects with stored tokens, and needs a login once the grant is revoked', async () => {
    const { as, rs } = await oauthServers();
    const store = new MemoryCredentialStore();
    const first = connect(rs.url, { type: 'oauth' }, { credentials: store, onAuthorizationUrl: headless });
    await first.connect();
    await first.close();
    const again = connect(rs.url, { type: 'oauth' }, { credentials: store });
    await again.connect();
    expect((await again.callTool('whoami')).text).toBe('hello');
    await again.close();
    // An hour later the access token has expired and the refresh token was revoked.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_601_000);
    as.tokens.clear();
    as.revokeRefreshTokens();
    const later = connect(rs.url, { type: 'oauth' }, { credentials: store });
    const e = await rejection(later.connect());
    expect(e.code).toBe('AUTH_REQUIRED');
    expect(e.details).toMatchObject({ command: 'switchboard auth demo', reason: 'grant_rejected' });
    expect(as.seen('/token', 'refresh_token')).toHaveLength(1);
    expect((await store.load('demo', as.issuer))?.tokens).toBeUndefined();
  });

  it('steps up on 403 insufficient_scope with the union of scopes, then retries the call', async () => {
    const { as } = await oauthServers((method) =>
      method === 'tools/call' ? 'mcp:read mcp:write' : 'mcp:read',
    );
    const asked: (string | null)[] = [];
    const conn = connect(
      (rs as TestProtectedServer).url,
      { type: 'oauth' },
      {
        credentials: new MemoryCredentialStore(),
        onAuthorizationUrl: (request) => {
          asked.push(request.url.searchParams.get('scope'));
          return headless(request);
        },
      },
    );
    await conn.connect();
    expect((await conn.callTool('whoami')).text).toBe('hello');
    expect(asked).toEqual(['mcp:read', 'mcp:read mcp:write']);
    expect(as.seen('/token', 'authorization_code')).toHaveLength(2);
  });

  it('stops stepping up when asking again cannot help', async () => {
    const server = await startAuthServer({ grant: () => 'mcp:read' });
    as = server;
    rs = await startProtectedServer({
      authServer: server.issuer,
      // Whatever the token holds: 401 without one, 403 insufficient_scope with one.
      check: () => ({ missing: 'mcp:read' }),
    });
    let logins = 0;
    const conn = connect(
      rs.url,
      { type: 'oauth' },
      {
        credentials: new MemoryCredentialStore(),
        onAuthorizationUrl: (request) => {
          logins++;
          return headless(request);
        },
      },
    );
    const e = await rejection(conn.connect());
    expect(e.code).toBe('AUTH_FAILED');
    expect(e.details).toMatchObject({ reason: 'insufficient_scope', requiredScope: 'mcp:read' });
    expect(logins).toBe(1);
  });
});
