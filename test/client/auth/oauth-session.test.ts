import { afterEach, describe, expect, it } from 'vitest';
import { followAuthorizationRedirects } from '../../../src/client/auth/authorization-redirects.js';
import type { CredentialStore } from '../../../src/client/auth/credential-store.js';
import { MemoryCredentialStore } from '../../../src/client/auth/memory-credential-store.js';
import { OAuthSession, type OAuthSessionOptions } from '../../../src/client/auth/oauth-session.js';
import type { OAuthSettings } from '../../../src/client/auth/oauth-settings.js';
import { SwitchboardError } from '../../../src/core/errors.js';
import { rejectionOf } from '../../helpers/rejection.js';
import {
  type AuthServerOptions,
  startAuthServer,
  startProtectedServer,
  type TestAuthServer,
  type TestProtectedServer,
} from './oauth-fixtures.js';

const REDIRECT = 'http://127.0.0.1:33418/oauth/callback';
const HOUR = 3_600_000;

let as: TestAuthServer;
let rs: TestProtectedServer;

async function servers(options: AuthServerOptions = {}, resource?: (url: string) => string): Promise<void> {
  as = await startAuthServer(options);
  rs = await startProtectedServer({
    authServer: as.issuer,
    ...(resource && { resource }),
    scopesSupported: ['mcp:read'],
    check: () => true,
  });
}

afterEach(async () => {
  await rs?.close();
  await as?.close();
});

function session(
  store: CredentialStore,
  extra: Partial<OAuthSessionOptions> = {},
  settings: Partial<OAuthSettings> = {},
) {
  return new OAuthSession({
    server: 'demo',
    serverUrl: rs.url,
    settings: { grant: 'authorization_code', signingAlgorithm: 'RS256', redirectUri: REDIRECT, ...settings },
    store,
    ...extra,
  });
}

/** Starts a login and returns the redirect the authorization server answers with. */
async function authorize(s: OAuthSession): Promise<string> {
  const start = await s.startAuthorization();
  if (start.kind !== 'redirect') throw new Error('expected a redirect');
  return followAuthorizationRedirects(start.url, { redirectUri: REDIRECT });
}

describe('OAuthSession: logging in', () => {
  it('completes a login: PKCE, the resource indicator as published, tokens stored', async () => {
    await servers();
    const store = new MemoryCredentialStore();
    const s = session(store);
    const redirect = await authorize(s);
    const [request] = as.seen('/authorize');
    expect(request?.params.get('code_challenge_method')).toBe('S256');
    expect(request?.params.get('resource')).toBe(rs.url);
    expect(request?.params.get('scope')).toBe('mcp:read');
    expect(request?.params.get('state')).toBe(new URL(redirect).searchParams.get('state'));
    await s.completeAuthorization(redirect);
    expect(await s.accessToken()).toBe('at-1');
    const [token] = as.seen('/token', 'authorization_code');
    expect(token?.params.get('resource')).toBe(rs.url);
    expect(token?.params.get('code_verifier')).toBeTruthy();
    const stored = await store.load('demo', as.issuer);
    expect(stored?.tokens).toMatchObject({ access_token: 'at-1', refresh_token: 'rt-1', scope: 'mcp:read' });
    expect(stored?.pending).toBeUndefined();
  });

  it('refuses a redirect whose state matches no login, and never exchanges its code', async () => {
    await servers();
    const s = session(new MemoryCredentialStore());
    const redirect = new URL(await authorize(s));
    const forged = new URL(redirect);
    forged.searchParams.set('state', 'forged-state');
    const e = await rejectionOf(s.completeAuthorization(forged));
    expect(e).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'state_mismatch' } });
    expect(as.seen('/token')).toHaveLength(0);
    // The genuine answer still completes, once.
    await s.completeAuthorization(redirect);
    expect(as.seen('/token')).toHaveLength(1);
    const replay = await rejectionOf(s.completeAuthorization(redirect));
    expect(replay).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'state_mismatch' } });
    expect(as.seen('/token')).toHaveLength(1);
  });

  it('completes a login started by another session on the same store', async () => {
    await servers();
    const store = new MemoryCredentialStore();
    const redirect = await authorize(session(store));
    const other = session(store);
    await other.completeAuthorization(redirect);
    expect(await other.accessToken()).toBe('at-1');
  });

  it('keeps a registration across loopback ports, and registers again for another redirect path', async () => {
    await servers();
    const store = new MemoryCredentialStore();
    for (const redirectUri of [
      'http://127.0.0.1:40001/cb',
      'http://127.0.0.1:40002/cb',
      'http://127.0.0.1:40002/other',
    ]) {
      const s = session(store);
      const start = await s.startAuthorization({ redirectUri });
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      expect(start.url.searchParams.get('redirect_uri')).toBe(redirectUri);
      await s.completeAuthorization(await followAuthorizationRedirects(start.url, { redirectUri }));
    }
    expect(as.seen('/register')).toHaveLength(2);
  });

  it('refuses an authorization response from another issuer (RFC 9207) before the token request', async () => {
    await servers({ iss: 'wrong' });
    const s = session(new MemoryCredentialStore());
    const e = await rejectionOf(s.completeAuthorization(await authorize(s)));
    expect(e).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'iss_mismatch' } });
    expect(as.seen('/token')).toHaveLength(0);
  });

  it('refuses resource metadata for another resource before contacting the authorization server', async () => {
    await servers({}, () => 'https://evil.example/mcp');
    const e = await rejectionOf(session(new MemoryCredentialStore()).startAuthorization());
    expect(e).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'resource_mismatch' } });
    expect(as.requests).toHaveLength(0);
  });

  it('refuses metadata whose endpoints sit on another origin, before the code or verifier go anywhere', async () => {
    await servers({
      metadata: (issuer, doc) => ({
        ...doc,
        token_endpoint: `${issuer.replace('127.0.0.1', 'localhost')}/token`,
      }),
    });
    const e = await rejectionOf(session(new MemoryCredentialStore()).startAuthorization());
    expect(e).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'cross_origin_endpoint' } });
    expect(as.requests.map((r) => r.path)).toEqual(['/.well-known/oauth-authorization-server']);
  });

  it('refuses metadata naming another issuer (RFC 8414 §3.3)', async () => {
    await servers({ metadata: (_issuer, doc) => ({ ...doc, issuer: 'https://attacker.example' }) });
    const e = await rejectionOf(session(new MemoryCredentialStore()).startAuthorization());
    expect(e).toMatchObject({ code: 'AUTH_FAILED', details: { reason: 'issuer_mismatch' } });
    expect(as.seen('/register')).toHaveLength(0);
    expect(as.seen('/authorize')).toHaveLength(0);
  });

  it('accepts plain OAuth metadata served at openid-configuration (SDK #2733)', async () => {
    await servers({ metadataPath: '/.well-known/openid-configuration' });
    const s = session(new MemoryCredentialStore());
    await s.completeAuthorization(await authorize(s));
    expect(await s.accessToken()).toBe('at-1');
    expect(as.requests.map((r) => r.path)).toContain('/.well-known/openid-configuration');
  });

  it('gets machine tokens with client_credentials and client_secret_basic, no browser', async () => {
    await servers({
      metadata: (_i, doc) => ({ ...doc, token_endpoint_auth_methods_supported: ['client_secret_basic'] }),
    });
    const s = session(
      new MemoryCredentialStore(),
      {},
      { grant: 'client_credentials', clientId: 'svc', clientSecret: 's3cret' },
    );
    expect(await s.startAuthorization()).toEqual({ kind: 'authorized' });
    const [request] = as.seen('/token', 'client_credentials');
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from('svc:s3cret').toString('base64')}`);
    expect(as.seen('/authorize')).toHaveLength(0);
    expect(await s.accessToken()).toBe('at-1');
  });
});

describe('OAuthSession: assertion grants', () => {
  it('reports a rejected assertion after one token request, without retrying (SEP-1933)', async () => {
    await servers();
    const s = session(
      new MemoryCredentialStore(),
      {},
      { grant: 'jwt_bearer', clientId: 'w', assertion: async () => 'jwt' },
    );
    const e = await rejectionOf(s.startAuthorization());
    expect(e).toMatchObject({
      code: 'AUTH_FAILED',
      details: { reason: 'oauth_error', oauthError: 'invalid_grant' },
    });
    const requests = as.seen('/token');
    expect(requests).toHaveLength(1);
    expect(requests[0]?.params.get('assertion')).toBe('jwt');
    expect(requests[0]?.params.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  });
});

describe('OAuthSession: refreshing', () => {
  async function loggedIn(clock: { now: number }, store = new MemoryCredentialStore()) {
    await servers();
    const s = session(store, { now: () => clock.now });
    await s.completeAuthorization(await authorize(s));
    return { s, store };
  }

  it('refreshes within 60 s of expiry, not before, and persists the rotated refresh token', async () => {
    const clock = { now: 1_800_000_000_000 };
    const { s, store } = await loggedIn(clock);
    clock.now += HOUR - 61_000;
    expect(await s.accessToken()).toBe('at-1');
    expect(as.seen('/token', 'refresh_token')).toHaveLength(0);
    clock.now += 2_000; // 59 s left
    expect(await s.accessToken()).toBe('at-2');
    const refreshes = as.seen('/token', 'refresh_token');
    expect(refreshes.map((r) => r.params.get('refresh_token'))).toEqual(['rt-1']);
    expect(refreshes[0]?.params.get('resource')).toBe(rs.url);
    const stored = (await store.load('demo', as.issuer))?.tokens;
    expect(stored).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-2', obtainedAt: clock.now });
    expect(stored?.expiresAt).toBe(clock.now + HOUR);
    // The spent refresh token is dead at the server; the stored one is the live one.
    const replay = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt-1' }),
    });
    expect(replay.status).toBe(400);
  });

  it('sends one token request when two sessions refresh at once', async () => {
    const clock = { now: 1_800_000_000_000 };
    const { store } = await loggedIn(clock);
    clock.now += HOUR - 10_000;
    const a = session(store, { now: () => clock.now });
    const b = session(store, { now: () => clock.now });
    const tokens = await Promise.all([a.accessToken(), b.accessToken(), a.accessToken()]);
    expect(tokens).toEqual(['at-2', 'at-2', 'at-2']);
    expect(as.seen('/token', 'refresh_token')).toHaveLength(1);
  });

  it('asks a machine grant again ahead of expiry', async () => {
    await servers();
    const clock = { now: 1_800_000_000_000 };
    const s = session(
      new MemoryCredentialStore(),
      { now: () => clock.now },
      { grant: 'client_credentials', clientId: 'svc', clientSecret: 's3cret' },
    );
    await s.startAuthorization();
    // A new session finds the stored tokens; no 401 needed to renew them.
    clock.now += HOUR - 30_000;
    expect(await s.accessToken()).toBe('at-2');
    expect(as.seen('/token', 'client_credentials')).toHaveLength(2);
  });

  it('does not send an expired token it cannot refresh', async () => {
    const clock = { now: 1_800_000_000_000 };
    const { s, store } = await loggedIn(clock);
    as.revokeRefreshTokens();
    clock.now += HOUR + 1;
    expect(await s.accessToken()).toBeUndefined();
    expect((await store.load('demo', as.issuer))?.tokens).toBeUndefined();
  });

  it('turns a rejected refresh token into AUTH_REQUIRED with the command that fixes it', async () => {
    const clock = { now: 1_800_000_000_000 };
    const { store } = await loggedIn(clock);
    as.revokeRefreshTokens();
    clock.now += HOUR + 1;
    const s = session(store, { now: () => clock.now });
    expect(await s.accessToken()).toBeUndefined();
    const challenge = new Response(null, {
      status: 401,
      headers: { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${rs.metadataUrl}"` },
    });
    const unauthorized = s.authProvider.onUnauthorized;
    if (!unauthorized) throw new Error('the session handles 401s');
    const e = await rejectionOf(
      unauthorized({ response: challenge, serverUrl: new URL(rs.url), fetchFn: fetch }),
    );
    expect(e).toBeInstanceOf(SwitchboardError);
    expect(e).toMatchObject({
      code: 'AUTH_REQUIRED',
      details: { server: 'demo', command: 'switchboard auth demo', reason: 'grant_rejected' },
    });
    expect((e as Error).message).toContain('`switchboard auth demo`');
    // Nothing was started that could clobber a login under way elsewhere.
    expect(as.seen('/authorize')).toHaveLength(1);
    expect((await store.load('demo', as.issuer))?.pending).toBeUndefined();
  });
});
