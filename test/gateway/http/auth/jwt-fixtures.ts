import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

/** Fixed times for token tests: "now" and a token life around it, in seconds. */
export const NOW_MS = 1_900_000_000_000;
export const NOW_S = NOW_MS / 1000;
export const ISSUER = 'https://id.example.test';
export const AUDIENCE = 'switchboard-test';
export const HS_SECRET = 'a-shared-secret-that-is-long-enough-for-hs256!';

export function claims(overrides: JWTPayload = {}): JWTPayload {
  return { iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: NOW_S - 10, exp: NOW_S + 600, ...overrides };
}

export function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An unsigned token (`alg: none`), made by hand since no library should make one. */
export function unsignedToken(payload: JWTPayload = claims()): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
}

export function signHs256(payload: JWTPayload, secret: string | Uint8Array = HS_SECRET): Promise<string> {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key);
}

/** An RS256 key pair, and a JWKS server on 127.0.0.1 that serves its public half. */
export async function startJwksServer(kid = 'k1') {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches += 1;
    if (req.url !== '/jwks') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks`,
    publicJwk: jwk,
    /** The public key as PEM: what an algorithm-confusion attacker uses as an HMAC secret. */
    publicPem: await exportSPKI(publicKey),
    fetches: () => fetches,
    sign: (payload: JWTPayload, header: { kid?: string } = {}) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid, ...header }).sign(privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
