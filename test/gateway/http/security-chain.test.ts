import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewaySection,
  hashToken,
  parseGateway,
  resolveGateway,
} from '../../../src/core/config/gateway-config.js';
import type { GatewayContext, Handler } from '../../../src/gateway/http/context.js';
import { SECURITY_HEADERS } from '../../../src/gateway/http/middleware/security-headers.js';
import { buildSecurityChain, type SecurityChainOptions } from '../../../src/gateway/http/security-chain.js';
import { thrown } from '../../helpers/rejection.js';
import {
  AUDIENCE,
  claims,
  HS_SECRET,
  ISSUER,
  NOW_MS,
  NOW_S,
  signHs256,
  startJwksServer,
  unsignedToken,
} from './auth/jwt-fixtures.js';
import { chunkedBody, manualClock, manualSchedule, recordingLogger } from './harness.js';

const TOKEN = 'ci-secret-token';
const BEARER: GatewaySection = {
  auth: {
    mode: 'bearer',
    tokens: [
      { id: 'ci', sha256: hashToken(TOKEN) },
      { id: 'locked-out', sha256: hashToken('locked-out-token'), servers: [] },
    ],
    resourceMetadata: { authorizationServers: ['https://as.example.test'] },
  },
  limits: { bodyBytes: 2048 },
};
const JWT_HS: GatewaySection = {
  auth: { mode: 'jwt', jwt: { secret: '${GW_SECRET}', issuer: ISSUER, audience: AUDIENCE } },
};

interface Send {
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | ReadableStream<Uint8Array>;
  remote?: string;
  signal?: AbortSignal;
}

function setup(section: GatewaySection, options: Partial<SecurityChainOptions> = {}, handler?: Handler) {
  const log = recordingLogger();
  const clock = manualClock(NOW_MS);
  const seen: GatewayContext[] = [];
  const echo: Handler = async (ctx) => {
    seen.push(ctx);
    return Response.json({
      principal: ctx.principal?.id,
      body: ctx.body ? new TextDecoder().decode(ctx.body) : null,
    });
  };
  const serve = buildSecurityChain(resolveGateway(parseGateway(section, 'test.json')), handler ?? echo, {
    bind: { host: '127.0.0.1', port: 7777 },
    log,
    now: clock.now,
    env: { GW_SECRET: HS_SECRET },
    ...options,
  });
  const send = (init: Send = {}) =>
    serve(
      new Request(init.url ?? 'http://127.0.0.1:7777/mcp', {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: init.headers ?? {},
        ...(init.body !== undefined && { body: init.body, duplex: 'half' }),
        ...(init.signal && { signal: init.signal }),
      } as RequestInit),
      { remoteAddress: init.remote ?? '127.0.0.1' },
    );
  return { send, log, clock, seen };
}

const bearer = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

async function expectRefusal(response: Response, status: number): Promise<{ code: number; message: string }> {
  expect(response.status).toBe(status);
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    expect(response.headers.get(name), name).toBe(value);
  expect(response.headers.get('x-request-id')).toMatch(/^[\w.-]{1,64}$/);
  const body = (await response.json()) as {
    jsonrpc: string;
    id: null;
    error: { code: number; message: string };
  };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
  return body.error;
}

describe('buildSecurityChain', () => {
  it('lets a good request through with its principal, body, id, headers and one log line', async () => {
    const { send, log, seen } = setup(BEARER);
    const response = await send({
      body: '{"jsonrpc":"2.0"}',
      headers: { ...bearer(), 'x-request-id': 'abc-1' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ principal: 'ci', body: '{"jsonrpc":"2.0"}' });
    expect(response.headers.get('x-request-id')).toBe('abc-1');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await seen[0]?.request.text()).toBe('{"jsonrpc":"2.0"}');
    expect(log.accessed).toEqual([
      expect.objectContaining({ id: 'abc-1', status: 200, principal: 'ci', path: '/mcp' }),
    ]);
    expect(JSON.stringify(log.accessed)).not.toContain(TOKEN);
  });

  it('refuses in the order of the chain: body cap, then Host/Origin, then rate limit, then authentication', async () => {
    const { send, seen, log } = setup({ ...BEARER, rateLimit: { perIp: { burst: 2, perSecond: 0.5 } } });
    const evil = { origin: 'https://evil.example' };
    // Oversize, evil Origin and no token: the body cap answers first.
    expect((await expectRefusal(await send({ body: 'x'.repeat(4096), headers: evil }), 413)).code).toBe(
      -32000,
    );
    // Evil Origin, no token: 403 before anyone asks for a token (and before the rate limit).
    await expectRefusal(await send({ headers: evil }), 403);
    await expectRefusal(await send({ headers: evil }), 403);
    await expectRefusal(await send({ headers: evil }), 403);
    // No token: 401 twice, then the address is out of tokens and gets 429 before authentication.
    await expectRefusal(await send(), 401);
    await expectRefusal(await send(), 401);
    const limited = await send({ headers: bearer() });
    await expectRefusal(limited, 429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(seen).toHaveLength(0);
    expect(log.accessed.map((e) => e.status)).toEqual([413, 403, 403, 403, 401, 401, 429]);
  });

  it('refuses the token attacks with 401 invalid_token and says why', async () => {
    const { send, seen } = setup(JWT_HS);
    const cases: [string, string | undefined, RegExp][] = [
      ['no token', undefined, /^Bearer$/],
      ['bad signature', await signHs256(claims(), 'x'.repeat(40)), /signature is invalid/],
      ['alg none', unsignedToken(), /signing algorithm is not accepted/],
      ['expired', await signHs256(claims({ exp: NOW_S - 3600 })), /has expired/],
      ['not yet valid', await signHs256(claims({ nbf: NOW_S + 3600 })), /not valid yet/],
      ['wrong audience', await signHs256(claims({ aud: 'other-service' })), /another audience/],
      ['wrong issuer', await signHs256(claims({ iss: 'https://evil.example' })), /another issuer/],
    ];
    for (const [name, token, challenge] of cases) {
      const response = await send(token === undefined ? {} : { headers: bearer(token) });
      await expectRefusal(response, 401);
      expect(response.headers.get('www-authenticate'), name).toMatch(challenge);
      if (token !== undefined)
        expect(response.headers.get('www-authenticate'), name).toMatch(/error="invalid_token"/);
    }
    expect(seen).toHaveLength(0);
    expect((await send({ headers: bearer(await signHs256(claims())) })).status).toBe(200);
  });

  it('serves public paths without a token, but still checks Host and Origin and sets the headers', async () => {
    const { send, seen } = setup(BEARER, { isPublic: (path) => path.startsWith('/ui/') });
    const page = await send({ url: 'http://127.0.0.1:7777/ui/app.js' });
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ body: null });
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-request-id')).toBeTruthy();
    expect(seen.at(-1)?.principal).toBeUndefined();
    await expectRefusal(await send({ url: 'http://127.0.0.1:7777/mcp' }), 401);
    // Not public: only the prefix the gateway names is (and /api answers in its own error shape).
    expect((await send({ url: 'http://127.0.0.1:7777/api/ui/' })).status).toBe(401);
    await expectRefusal(
      await send({ url: 'http://127.0.0.1:7777/ui/app.js', headers: { host: 'evil.example:7777' } }),
      403,
    );
  });

  it('refuses evil origins and rebound Host headers with 403', async () => {
    const { send } = setup(BEARER);
    const origin = await send({ headers: { ...bearer(), origin: 'https://evil.example' } });
    expect((await expectRefusal(origin, 403)).message).toMatch(/Origin "https:\/\/evil\.example"/);
    const rebound = await send({ headers: { ...bearer(), host: 'attacker.example:7777' } });
    expect((await expectRefusal(rebound, 403)).message).toMatch(/Host "attacker\.example:7777"/);
    // The metadata document is public, but not to a rebound name either.
    const doc = 'http://127.0.0.1:7777/.well-known/oauth-protected-resource/mcp';
    expect((await send({ url: doc })).status).toBe(200);
    await expectRefusal(await send({ url: doc, headers: { host: 'attacker.example:7777' } }), 403);
  });

  it('refuses oversize bodies: declared, lying about their length, and chunked', async () => {
    const { send, seen } = setup(BEARER);
    await expectRefusal(await send({ headers: bearer(), body: 'x'.repeat(2049) }), 413);
    const lying = await send({
      headers: { ...bearer(), 'content-length': '12' },
      body: chunkedBody([new Uint8Array(1500), new Uint8Array(1500)]),
    });
    await expectRefusal(lying, 413);
    await expectRefusal(await send({ headers: bearer(), body: chunkedBody([new Uint8Array(3000)]) }), 413);
    expect(seen).toHaveLength(0);
    expect((await send({ headers: bearer(), body: 'x'.repeat(2048) })).status).toBe(200);
  });

  it('limits a burst per address with a Retry-After that is right', async () => {
    const { send, clock } = setup({ ...BEARER, rateLimit: { perIp: { burst: 3, perSecond: 0.5 } } });
    for (let i = 0; i < 3; i++) expect((await send({ headers: bearer() })).status).toBe(200);
    const refused = await send({ headers: bearer() });
    await expectRefusal(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('2');
    clock.advance(1000);
    expect((await send({ headers: bearer() })).headers.get('retry-after')).toBe('1');
    expect((await send({ headers: bearer(), remote: '127.0.0.2' })).status).toBe(200);
    clock.advance(1000);
    expect((await send({ headers: bearer() })).status).toBe(200);
  });

  it('limits a principal across addresses, after authentication', async () => {
    const { send } = setup({ ...BEARER, rateLimit: { perPrincipal: { burst: 2, perSecond: 1 } } });
    expect((await send({ headers: bearer(), remote: '127.0.0.2' })).status).toBe(200);
    expect((await send({ headers: bearer(), remote: '127.0.0.3' })).status).toBe(200);
    const refused = await send({ headers: bearer(), remote: '127.0.0.4' });
    expect((await expectRefusal(refused, 429)).message).toMatch(/this principal/);
    // A request without a token is not charged to the principal: it fails authentication first.
    await expectRefusal(await send({ remote: '127.0.0.5' }), 401);
  });

  it('refuses a principal that may use nothing with 403, after authentication', async () => {
    const { send, seen } = setup(BEARER);
    await expectRefusal(await send({ headers: bearer('locked-out-token') }), 403);
    expect(seen).toHaveLength(0);
  });

  it('refuses mode none on a non-loopback address unless insecure, and warns when insecure', () => {
    const settings = resolveGateway(parseGateway({ host: '0.0.0.0' }, 'test.json'));
    const handler: Handler = async () => new Response('ok');
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      const error = thrown(() => buildSecurityChain(settings, handler, { bind: { host, port: 7777 } }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(/without authentication.*--insecure/);
    }
    const log = recordingLogger();
    buildSecurityChain({ ...settings, insecure: true }, handler, {
      bind: { host: '0.0.0.0', port: 7777 },
      log,
    });
    expect(log.warnings).toEqual([expect.stringMatching(/0\.0\.0\.0 without authentication \(--insecure\)/)]);
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      expect(() => buildSecurityChain(settings, handler, { bind: { host, port: 7777 }, log })).not.toThrow();
    }
    expect(() =>
      buildSecurityChain(resolveGateway(parseGateway(BEARER, 't.json')), handler, {
        bind: { host: '0.0.0.0', port: 1 },
      }),
    ).not.toThrow();
  });

  it('turns a thrown error into a 500 that shows only the request id, and logs the details', async () => {
    const { send, log } = setup({}, {}, async () => {
      throw new Error('database password is hunter2');
    });
    const response = await send({ headers: { 'x-request-id': 'r-500' } });
    const error = await expectRefusal(response.clone(), 500);
    expect(error).toEqual({
      code: -32603,
      message: 'Internal error. The gateway log has the details under request id r-500.',
    });
    expect(await response.text()).not.toMatch(/hunter2|at .*\.ts/);
    expect(log.errors).toEqual([{ message: 'request r-500 failed', error: expect.any(Error) }]);
  });

  it('answers 504 when the handler takes too long, aborting its signal', async () => {
    const timers = manualSchedule();
    let signal: AbortSignal | undefined;
    const { send, log } = setup({}, { schedule: timers.schedule }, (ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    const pending = send();
    await new Promise<void>((resolve) => {
      const wait = () => (timers.timers.length > 0 ? resolve() : setImmediate(wait));
      wait();
    });
    expect(timers.timers[0]?.ms).toBe(120_000);
    timers.fireAll();
    await expectRefusal(await pending, 504);
    expect(signal?.aborted).toBe(true);
    expect(log.errors).toHaveLength(1);
  });

  it('answers a request whose client left with a quiet 499', async () => {
    const client = new AbortController();
    const { send, log } = setup({}, {}, async (ctx) => {
      client.abort();
      ctx.signal.throwIfAborted();
      return new Response('never');
    });
    const response = await send({ signal: client.signal });
    expect(response.status).toBe(499);
    expect(log.errors).toEqual([]);
  });
});

describe('buildSecurityChain from the adapter (head first, request on demand)', () => {
  /** The chain's adapter entry, with a request maker that counts how often it is asked. */
  function incoming(options: { path?: string; headers?: Record<string, string>; handler: Handler }) {
    const chain = buildSecurityChain(resolveGateway(parseGateway(BEARER, 'test.json')), options.handler, {
      bind: { host: '127.0.0.1', port: 7777 },
      log: recordingLogger(),
    });
    const url = `http://127.0.0.1:7777${options.path ?? '/mcp'}`;
    const headers = new Headers({ host: '127.0.0.1:7777', ...options.headers });
    const controller = new AbortController();
    let built = 0;
    const made = new Request(url, { method: 'POST', headers, signal: controller.signal });
    const run = chain.incoming!(
      {
        head: {
          method: 'POST',
          pathname: new URL(url).pathname,
          host: '127.0.0.1:7777',
          header: (name) => headers.get(name),
        },
        request: () => {
          built += 1;
          return made;
        },
      },
      { remoteAddress: '127.0.0.1', abort: (reason) => controller.abort(reason), signal: controller.signal },
    );
    return { run, built: () => built };
  }

  it('runs every step on the head alone: a handler that reads only the head never builds a request', async () => {
    const served = incoming({
      headers: bearer(),
      handler: async (ctx) => Response.json({ who: ctx.principal?.id }),
    });
    const response = await served.run;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ who: 'ci' });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.built()).toBe(0);
  });

  it('builds the request once for a handler that reads it, and refuses without building one', async () => {
    const reading = incoming({
      headers: bearer(),
      handler: async (ctx) => {
        const first = ctx.request;
        return Response.json({ same: ctx.request === first, url: first.url });
      },
    });
    expect(await (await reading.run).json()).toEqual({ same: true, url: 'http://127.0.0.1:7777/mcp' });
    expect(reading.built()).toBe(1);
    const refused = incoming({
      headers: { ...bearer(), origin: 'https://evil.example' },
      handler: async () => new Response('never'),
    });
    expect((await refused.run).status).toBe(403);
    expect(refused.built()).toBe(0);
  });
});

describe('buildSecurityChain with a JWKS URL', () => {
  let jwks: Awaited<ReturnType<typeof startJwksServer>>;
  beforeAll(async () => {
    jwks = await startJwksServer();
  });
  afterAll(() => jwks.close());

  it('accepts a token from the key set and refuses HS256 made with its public key', async () => {
    const { send } = setup({
      auth: { mode: 'jwt', jwt: { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE } },
    });
    expect((await send({ headers: bearer(await jwks.sign(claims())) })).status).toBe(200);
    const publicPem = jwks.publicPem;
    const confused = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(publicPem));
    const response = await send({ headers: bearer(confused) });
    await expectRefusal(response, 401);
    expect(response.headers.get('www-authenticate')).toMatch(/signing algorithm is not accepted/);
  });
});
