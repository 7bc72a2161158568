import { describe, expect, it } from 'vitest';
import { type GatewayAuthConfig, hashToken } from '../../../../src/core/config/gateway-config.js';
import { authenticate } from '../../../../src/gateway/http/middleware/authenticate.js';
import { contextFor, runStep } from '../harness.js';

const METADATA = { authorizationServers: ['https://as.example.test'], scopesSupported: ['mcp'] };
const BEARER: GatewayAuthConfig = {
  mode: 'bearer',
  tokens: [{ id: 'ci', sha256: hashToken('good-token') }],
  resourceMetadata: METADATA,
};
const DOC_URL = 'http://localhost:7777/.well-known/oauth-protected-resource/mcp';

function call(
  auth: GatewayAuthConfig,
  init: RequestInit & { url?: string } = {},
  remoteAddress = '127.0.0.1',
) {
  const ctx = contextFor(new Request(init.url ?? 'http://localhost:7777/mcp', init), { remoteAddress });
  return { ctx, result: runStep(authenticate({ auth, path: '/mcp' }), ctx) };
}

describe('authenticate', () => {
  it('mode none: the anonymous principal, from this machine only unless insecure', async () => {
    const local = call({ mode: 'none' });
    expect((await local.result).nextCalls).toBe(1);
    expect(local.ctx.principal).toMatchObject({ id: 'anonymous', kind: 'anonymous' });
    expect((await call({ mode: 'none' }, {}, '203.0.113.9').result).error?.status).toBe(403);
    const ctx = contextFor(new Request('http://localhost:7777/mcp'), { remoteAddress: '203.0.113.9' });
    const insecure = await runStep(
      authenticate({ auth: { mode: 'none' }, path: '/mcp', insecure: true }),
      ctx,
    );
    expect(insecure.nextCalls).toBe(1);
  });

  it('no token: 401 with a challenge that points at the metadata, without an error code', async () => {
    const { error, nextCalls } = await call(BEARER).result;
    expect(error?.status).toBe(401);
    expect(nextCalls).toBe(0);
    expect(error?.headers['WWW-Authenticate']).toBe(`Bearer resource_metadata="${DOC_URL}"`);
    // Another scheme counts as no bearer token.
    const basic = await call(BEARER, { headers: { authorization: 'Basic Z29vZC10b2tlbg==' } }).result;
    expect(basic.error?.headers['WWW-Authenticate']).toBe(`Bearer resource_metadata="${DOC_URL}"`);
  });

  it('bad or malformed token: 401 invalid_token', async () => {
    for (const authorization of ['Bearer wrong-token', 'Bearer good-token extra', 'Bearer', 'Bearer  ']) {
      const { error } = await call(BEARER, { headers: { authorization } }).result;
      expect(error?.status, authorization).toBe(401);
      expect(error?.headers['WWW-Authenticate'], authorization).toMatch(
        /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/localhost:7777\//,
      );
    }
  });

  it('a good token sets the principal; the scheme is case-insensitive', async () => {
    for (const authorization of ['Bearer good-token', 'bearer good-token']) {
      const { ctx, result } = call(BEARER, { headers: { authorization } });
      expect((await result).nextCalls).toBe(1);
      expect(ctx.principal).toMatchObject({ id: 'ci', kind: 'token' });
    }
  });

  it('no resource metadata configured: a bare challenge', async () => {
    const { error } = await call({ mode: 'bearer', tokens: BEARER.mode === 'bearer' ? BEARER.tokens : [] })
      .result;
    expect(error?.headers['WWW-Authenticate']).toBe('Bearer');
    const bad = await call({ mode: 'bearer', tokens: [] }, { headers: { authorization: 'Bearer x' } }).result;
    expect(bad.error?.headers['WWW-Authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('serves the RFC 9728 document without a token', async () => {
    const { result } = call(BEARER, { url: DOC_URL });
    const { response, nextCalls } = await result;
    expect(nextCalls).toBe(0);
    expect(response?.status).toBe(200);
    expect(await response?.json()).toEqual({
      resource: 'http://localhost:7777/mcp',
      authorization_servers: ['https://as.example.test'],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'Switchboard',
    });
    const head = await call(BEARER, { url: DOC_URL, method: 'HEAD' }).result;
    expect(head.response?.status).toBe(200);
    expect(head.response?.body).toBeNull();
    expect((await call(BEARER, { url: DOC_URL, method: 'POST', body: '{}' }).result).error?.status).toBe(405);
  });

  it('uses a configured public resource URL for the document and the challenge', async () => {
    const auth: GatewayAuthConfig = {
      ...BEARER,
      resourceMetadata: { ...METADATA, resource: 'https://gw.example.test/tools/mcp' },
    } as GatewayAuthConfig;
    const { error } = await call(auth).result;
    expect(error?.headers['WWW-Authenticate']).toBe(
      'Bearer resource_metadata="https://gw.example.test/.well-known/oauth-protected-resource/tools/mcp"',
    );
    const doc = await call(auth, {
      url: 'http://localhost:7777/.well-known/oauth-protected-resource/tools/mcp',
    }).result;
    expect(await doc.response?.json()).toMatchObject({ resource: 'https://gw.example.test/tools/mcp' });
  });
});
