import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayJwtConfig } from '../../../../src/core/config/gateway-config.js';
import { jwtVerifier } from '../../../../src/gateway/http/auth/jwt-verifier.js';
import { TokenRejected } from '../../../../src/gateway/http/auth/token-verifier.js';
import { HttpError } from '../../../../src/gateway/http/http-error.js';
import { rejectionOf } from '../../../helpers/rejection.js';
import {
  AUDIENCE,
  base64url,
  claims,
  HS_SECRET,
  ISSUER,
  NOW_MS,
  NOW_S,
  signHs256,
  startJwksServer,
  unsignedToken,
} from './jwt-fixtures.js';

const now = () => NOW_MS;
const HS: GatewayJwtConfig = {
  key: { kind: 'secret', secret: '${GW_JWT_SECRET}' },
  issuer: ISSUER,
  audience: [AUDIENCE],
  algorithms: ['HS256'],
  principalClaim: 'sub',
};
const env = { GW_JWT_SECRET: HS_SECRET };

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(TokenRejected);
  return (error as TokenRejected).description;
}

describe('jwtVerifier with an HS256 secret', () => {
  const verify = jwtVerifier(HS, { env, now });

  it('accepts a valid token and names its holder', async () => {
    const principal = await verify(await signHs256(claims()));
    expect(principal).toMatchObject({ id: 'alice', kind: 'jwt', grants: { servers: ['*'], tools: ['*'] } });
    expect(principal.claims?.iss).toBe(ISSUER);
  });

  it('refuses a bad signature', async () => {
    const forged = await signHs256(claims(), 'another-secret-that-is-also-long-enough!!');
    expect(await refusal(verify(forged))).toBe("the token's signature is invalid");
    const [header, , signature] = (await signHs256(claims())).split('.');
    const tampered = `${header}.${base64url(claims({ sub: 'admin' }))}.${signature}`;
    expect(await refusal(verify(tampered))).toBe("the token's signature is invalid");
  });

  it('refuses alg none, with or without a signature part', async () => {
    expect(await refusal(verify(unsignedToken()))).toBe("the token's signing algorithm is not accepted");
    const [, , signature] = (await signHs256(claims())).split('.');
    expect(await refusal(verify(`${unsignedToken().slice(0, -1)}.${signature}`))).toBe(
      "the token's signing algorithm is not accepted",
    );
  });

  it('refuses expired, not-yet-valid, wrong-audience, wrong-issuer and exp-less tokens', async () => {
    expect(await refusal(verify(await signHs256(claims({ exp: NOW_S - 31 }))))).toBe('the token has expired');
    expect(await refusal(verify(await signHs256(claims({ nbf: NOW_S + 31 }))))).toBe(
      'the token is not valid yet',
    );
    expect(await refusal(verify(await signHs256(claims({ aud: 'someone-else' }))))).toBe(
      'the token is meant for another audience',
    );
    expect(await refusal(verify(await signHs256(claims({ iss: 'https://evil.example' }))))).toBe(
      'the token comes from another issuer',
    );
    const { exp: _, ...noExp } = claims();
    expect(await refusal(verify(await signHs256(noExp)))).toBe('the token has no "exp" claim');
    const { sub: __, ...noSub } = claims();
    expect(await refusal(verify(await signHs256(noSub)))).toBe(
      'the token has no "sub" claim naming its holder',
    );
  });

  it('allows a little clock skew', async () => {
    await expect(
      verify(await signHs256(claims({ exp: NOW_S - 20, nbf: NOW_S + 20 }))),
    ).resolves.toMatchObject({
      id: 'alice',
    });
  });

  it('reads allow-lists from claims, and a missing claim allows nothing', async () => {
    const scoped = jwtVerifier({ ...HS, serversClaim: 'mcp_servers', toolsClaim: 'mcp_tools' }, { env, now });
    const principal = await scoped(
      await signHs256(claims({ mcp_servers: ['fs'], mcp_tools: 'read_* fs/list' })),
    );
    expect(principal.grants).toEqual({ servers: ['fs'], tools: ['read_*', 'fs/list'] });
    expect(principal.allows('fs', 'read_file')).toBe(true);
    expect(principal.allows('github', 'read_file')).toBe(false);
    const bare = await scoped(await signHs256(claims()));
    expect(bare.grants).toEqual({ servers: [], tools: [] });
    const junk = await scoped(await signHs256(claims({ mcp_servers: [1, 2], mcp_tools: { a: 1 } })));
    expect(junk.grants).toEqual({ servers: [], tools: [] });
  });

  it('refuses to start with an unset or short secret', async () => {
    expect(() => jwtVerifier(HS, { env: {}, now })).toThrow(/GW_JWT_SECRET is not set/);
    expect(() => jwtVerifier(HS, { env: { GW_JWT_SECRET: 'short' }, now })).toThrow(/at least 32/);
  });
});

describe('jwtVerifier with a JWKS URL', () => {
  let jwks: Awaited<ReturnType<typeof startJwksServer>>;
  let config: GatewayJwtConfig;
  beforeAll(async () => {
    jwks = await startJwksServer();
    config = {
      key: { kind: 'jwks', url: jwks.url },
      issuer: ISSUER,
      audience: [AUDIENCE],
      algorithms: ['RS256', 'ES256'],
      principalClaim: 'sub',
    };
  });
  afterAll(() => jwks.close());

  it('accepts tokens signed by the key set, fetching it once', async () => {
    const verify = jwtVerifier(config, { now });
    for (const sub of ['a', 'b', 'c'])
      await expect(verify(await jwks.sign(claims({ sub })))).resolves.toMatchObject({ id: sub });
    expect(jwks.fetches()).toBe(1);
  });

  it('refuses a token signed by another key under the same kid', async () => {
    const other = await generateKeyPair('RS256');
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(other.privateKey);
    expect(await refusal(jwtVerifier(config, { now })(token))).toBe("the token's signature is invalid");
  });

  it('refuses HS256 "signed" with the public key (algorithm confusion)', async () => {
    const publicPem = jwks.publicPem;
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(publicPem));
    expect(await refusal(jwtVerifier(config, { now })(token))).toBe(
      "the token's signing algorithm is not accepted",
    );
    expect(await refusal(jwtVerifier(config, { now })(unsignedToken()))).toBe(
      "the token's signing algorithm is not accepted",
    );
  });

  it('refuses a token whose kid is not in the set', async () => {
    expect(await refusal(jwtVerifier(config, { now })(await jwks.sign(claims(), { kid: 'unknown' })))).toBe(
      "no key of the issuer matches the token's key id",
    );
  });

  it('answers 503, not 401, when the key set cannot be fetched', async () => {
    const down = await startJwksServer();
    await down.close();
    const verify = jwtVerifier({ ...config, key: { kind: 'jwks', url: down.url } }, { now });
    const error = await rejectionOf(verify(await down.sign(claims())));
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
  });
});
