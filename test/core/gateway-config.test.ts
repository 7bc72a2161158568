import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mergeConfigs, normalizeConfigFile } from '../../src/core/config/config-file.js';
import {
  DEFAULT_GATEWAY,
  hashToken,
  mergeGateway,
  parseGateway,
  resolveGateway,
} from '../../src/core/config/gateway-config.js';
import { configJsonSchema } from '../../src/core/config/json-schema.js';
import { thrown } from '../helpers/rejection.js';

const HASH = hashToken('a-long-random-token');
const JWKS = { jwksUrl: 'https://id.example.com/jwks', issuer: 'https://id.example.com', audience: 'sb' };

function rejection(gateway: unknown) {
  return thrown(() => parseGateway(gateway, 'p.json'));
}

describe('gateway config', () => {
  it('defaults every field, listening on loopback without authentication', () => {
    expect(resolveGateway(undefined)).toEqual(DEFAULT_GATEWAY);
    expect(DEFAULT_GATEWAY).toMatchObject({
      host: '127.0.0.1',
      port: 7777,
      path: '/mcp',
      insecure: false,
      auth: { mode: 'none' },
      rateLimit: { perIp: { burst: 500, perSecond: 100 } },
      limits: { bodyBytes: 1_048_576, argumentBytes: 262_144, depth: 32, stringLength: 100_000 },
      names: 'namespaced',
      consent: 'on',
      sessions: { idleTtlMs: 1_800_000, max: 1000 },
    });
  });

  it('reads the section from a config file and leaves unset fields unset', () => {
    const file = normalizeConfigFile({ gateway: { port: 8080, limits: { depth: 8 } } }, 'p.json');
    expect(file.gateway).toEqual({ port: 8080, limits: { depth: 8 } });
    const resolved = resolveGateway(file.gateway);
    expect(resolved.port).toBe(8080);
    expect(resolved.limits).toEqual({ ...DEFAULT_GATEWAY.limits, depth: 8 });
  });

  it('normalizes bearer tokens and JWT settings, with algorithms defaulted by key kind', () => {
    const bearer = resolveGateway(
      parseGateway(
        { auth: { mode: 'bearer', tokens: [{ id: 'ci', sha256: HASH, servers: ['gh'] }] } },
        'p.json',
      ),
    );
    expect(bearer.auth).toEqual({ mode: 'bearer', tokens: [{ id: 'ci', sha256: HASH, servers: ['gh'] }] });

    const jwks = resolveGateway(parseGateway({ auth: { mode: 'jwt', jwt: JWKS } }, 'p.json'));
    expect(jwks.auth).toEqual({
      mode: 'jwt',
      jwt: {
        key: { kind: 'jwks', url: JWKS.jwksUrl },
        issuer: JWKS.issuer,
        audience: ['sb'],
        algorithms: ['RS256', 'ES256'],
        principalClaim: 'sub',
      },
    });
    const hs = resolveGateway(
      parseGateway(
        { auth: { mode: 'jwt', jwt: { secret: '${GW_SECRET}', issuer: 'i', audience: ['a', 'b'] } } },
        'p.json',
      ),
    );
    expect(hs.auth.mode === 'jwt' && hs.auth.jwt).toMatchObject({
      key: { kind: 'secret', secret: '${GW_SECRET}' },
      audience: ['a', 'b'],
      algorithms: ['HS256'],
    });
  });

  it('refuses "none" and algorithms that do not fit the key, naming file and field', () => {
    const none = rejection({ auth: { mode: 'jwt', jwt: { ...JWKS, algorithms: ['RS256', 'none'] } } });
    expect(none.code).toBe('CONFIG_INVALID');
    expect(none.message).toMatch(/^p\.json: field "gateway\.auth\.jwt\.algorithms\.1": "none" .*forge/);
    expect(rejection({ auth: { mode: 'jwt', jwt: { ...JWKS, algorithms: ['HS256'] } } }).message).toMatch(
      /algorithms\.0": "HS256" needs a shared secret/,
    );
    expect(
      rejection({
        auth: { mode: 'jwt', jwt: { secret: '${S}', issuer: 'i', audience: 'a', algorithms: ['RS256'] } },
      }).message,
    ).toMatch(/"RS256" needs a key set/);
    expect(rejection({ auth: { mode: 'jwt', jwt: { ...JWKS, algorithms: ['XX1'] } } }).message).toMatch(
      /not a known JWS algorithm/,
    );
  });

  it('refuses unsafe or incomplete auth settings', () => {
    expect(rejection({ auth: { mode: 'bearer' } }).message).toMatch(
      /"gateway\.auth\.tokens": mode "bearer" needs/,
    );
    expect(rejection({ auth: { mode: 'jwt' } }).message).toMatch(/"gateway\.auth\.jwt"/);
    expect(rejection({ auth: { mode: 'none', tokens: [{ id: 'a', sha256: HASH }] } }).message).toMatch(
      /only in mode "bearer"/,
    );
    // The token itself where its hash belongs: refused, with how to make the hash.
    const plain = rejection({ auth: { mode: 'bearer', tokens: [{ id: 'a', sha256: 'my-token' }] } });
    expect(plain.message).toMatch(
      /tokens\.0\.sha256": must be the SHA-256 .*never the token itself.*createHash/,
    );
    expect(
      rejection({
        auth: {
          mode: 'bearer',
          tokens: [
            { id: 'a', sha256: HASH },
            { id: 'a', sha256: hashToken('other') },
          ],
        },
      }).message,
    ).toMatch(/tokens\.1\.id": "a" is used twice/);
    expect(
      rejection({ auth: { mode: 'jwt', jwt: { ...JWKS, jwksUrl: 'http://id.example.com/jwks' } } }).message,
    ).toMatch(/jwksUrl": must be an https:\/\/ URL/);
    expect(rejection({ auth: { mode: 'jwt', jwt: { ...JWKS, secret: '${S}' } } }).message).toMatch(
      /either "secret" \(HS256\) or "jwksUrl", not both/,
    );
    expect(
      rejection({ auth: { mode: 'jwt', jwt: { secret: 'short', issuer: 'i', audience: 'a' } } }).message,
    ).toMatch(/secret": is shorter than 32/);
  });

  it('refuses malformed origins, hosts, limits and unknown fields with the fix', () => {
    expect(rejection({ allowedOrigins: ['https://app.example.com/'] }).message).toMatch(
      /allowedOrigins\.0": must be an origin/,
    );
    expect(rejection({ allowedHosts: ['https://mcp.example.com'] }).message).toMatch(
      /allowedHosts\.0": must be a Host/,
    );
    expect(rejection({ limits: { bodyBytes: 10 } }).message).toMatch(/"gateway\.limits\.bodyBytes"/);
    expect(rejection({ rateLimits: {} }).message).toMatch(/Did you mean "rateLimit"\?/);
    expect(rejection({ names: 'flat' }).message).toMatch(/"gateway\.names": must be one of "namespaced"/);
  });

  it('merges project over user field by field, taking auth and allow-lists whole', () => {
    const user = parseGateway(
      {
        port: 7000,
        limits: { depth: 10, bodyBytes: 4096 },
        allowedOrigins: ['https://a.example'],
        auth: { mode: 'bearer', tokens: [{ id: 'u', sha256: HASH }] },
      },
      'u.json',
    );
    const project = parseGateway(
      { limits: { depth: 20 }, allowedOrigins: ['https://b.example'], auth: { mode: 'jwt', jwt: JWKS } },
      'p.json',
    );
    const merged = mergeGateway(user, project);
    expect(merged.port).toBe(7000);
    expect(merged.limits).toEqual({ depth: 20, bodyBytes: 4096 });
    expect(merged.allowedOrigins).toEqual(['https://b.example']);
    expect(merged.auth?.mode).toBe('jwt');
    expect(merged.auth?.tokens).toBeUndefined();

    const files = mergeConfigs(
      normalizeConfigFile({ gateway: { port: 1 } }, 'u.json'),
      normalizeConfigFile({ gateway: { host: '::1' } }, 'p.json'),
    );
    expect(files.gateway).toEqual({ port: 1, host: '::1' });
    expect(mergeConfigs({ servers: [] }, { servers: [] }).gateway).toBeUndefined();
  });

  it('hashes tokens as SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashToken('x')).toBe(createHash('sha256').update('x').digest('hex'));
  });

  it('is in the JSON Schema of the config file', () => {
    const schema = configJsonSchema() as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(schema.properties.gateway?.properties ?? {})).toEqual(
      expect.arrayContaining(['host', 'port', 'auth', 'rateLimit', 'limits', 'expose', 'sessions']),
    );
  });
});
