import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/core/config/gateway-config.js';
import type { ApiServer, ApiSession, ApiTool } from '../../../src/gateway/api/api-types.js';
import { visibleCatalogEtag } from '../../../src/gateway/api/catalog-etag.js';
import { createPrincipal } from '../../../src/gateway/http/principal.js';
import { catalogHas, eventually } from '../../helpers/wait.js';
import { type ApiClient, type ApiUnderTest, kitchen, nextEvent, startApiUnderTest } from './api-harness.js';

/**
 * Who may do what through the API, and what the security chain's refusals look like on it:
 * a gateway with bearer tokens — one that may use everything, one limited to one tool of one
 * server — in front of a real host with two servers; and the chain's own 401, 413 and 429 as
 * ApiError JSON. Also: event streams let go of everything they attached when they end.
 */
let under: ApiUnderTest;
let admin: ApiClient;
let limited: ApiClient;
let anonymous: ApiClient;

beforeAll(async () => {
  under = await startApiUnderTest({
    servers: [kitchen('kitchen', { env: { SECRET_VALUE: 'hunter2-hunter2' } }), kitchen('other')],
    ready: ['mcp__kitchen__echo', 'mcp__other__echo'],
    host: { governance: { mode: 'full-auto' } },
  });
  const auth = {
    mode: 'bearer' as const,
    tokens: [
      { id: 'admin', sha256: hashToken('admin-token') },
      { id: 'limited', sha256: hashToken('limited-token'), servers: ['kitchen'], tools: ['echo'] },
    ],
  };
  admin = await under.gatewayWith({ auth }, 'admin-token');
  limited = await under.gatewayWith({ auth }, 'limited-token');
  anonymous = await under.gatewayWith({ auth });
}, 60_000);

afterAll(async () => {
  await under?.close();
});

describe('bearer principals', () => {
  it('refuses a request without a token with ApiError JSON and the challenge', async () => {
    const response = await anonymous.request('/api/servers');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('shows a limited principal only what its grants cover', async () => {
    const session = await limited.json<ApiSession>('/api/session');
    expect(session).toMatchObject({ principal: 'limited', canManage: false });
    const { servers } = await limited.json<{ servers: ApiServer[] }>('/api/servers');
    expect(servers.map((s) => s.name)).toEqual(['kitchen']);
    const { tools } = await limited.json<{ tools: ApiTool[] }>('/api/tools');
    expect(tools.map((t) => t.name)).toEqual(['mcp__kitchen__echo']);
    // Credentials in the entry are masked for a principal that may not manage servers.
    const detail = await limited.json<{ entry: { env: Record<string, string> } }>('/api/servers/kitchen');
    expect(detail.entry.env).toEqual({ SECRET_VALUE: '***' });
    const full = await admin.json<{ entry: { env: Record<string, string> } }>('/api/servers/kitchen');
    expect(full.entry.env).toEqual({ SECRET_VALUE: 'hunter2-hunter2' });
  });

  it('refuses what the grants do not cover with 403 FORBIDDEN', async () => {
    const add = await limited.error(
      '/api/tools/mcp__kitchen__add/call',
      { body: { arguments: { a: 1, b: 2 } } },
      403,
    );
    expect(add).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('"limited"') });
    expect((await limited.error('/api/servers/other', {}, 403)).code).toBe('FORBIDDEN');
    expect((await limited.error('/api/logs/other', {}, 403)).code).toBe('FORBIDDEN');
    expect((await limited.error('/api/servers/kitchen/disable', { method: 'POST' }, 403)).code).toBe(
      'FORBIDDEN',
    );
    expect((await limited.error('/api/audit', {}, 403)).code).toBe('FORBIDDEN');
    expect(under.host.servers().find((s) => s.name === 'kitchen')?.state).toBe('connected');
  });

  it('needs no CSRF token from a request that carries Authorization', async () => {
    const echoed = await limited.json<{ content: unknown[] }>('/api/tools/mcp__kitchen__echo/call', {
      body: { arguments: { text: 'hi' } },
      csrf: false,
    });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hi' }]);
    const session = await admin.json<ApiSession>('/api/session');
    expect(session.canManage).toBe(true);
    const reloaded = await admin.json<ApiServer>('/api/servers/other/reload', {
      method: 'POST',
      csrf: false,
    });
    expect(reloaded.name).toBe('other');
  });
});

describe('the catalog event', () => {
  it('carries the etag of what the caller sees, and a change behind its grants is not news to it', async () => {
    const asLimited = createPrincipal({
      id: 'limited',
      kind: 'token',
      grants: { servers: ['kitchen'], tools: ['echo'] },
    });
    // Both servers offer their tools before anything changes (a test above reloads "other").
    await catalogHas(under.host, 'mcp__other__echo');
    const mine = await limited.stream('/api/stream');
    const theirs = await admin.stream('/api/stream');
    try {
      const first = (await nextEvent<{ etag: string }>(mine, 'catalog')).data.etag;
      expect(first).toBe(visibleCatalogEtag(under.host.catalog(), asLimited));
      const adminFirst = (await nextEvent<{ etag: string }>(theirs, 'catalog')).data.etag;

      // A server the limited principal does not see goes away: the admin is told, it is not.
      await admin.json('/api/servers/other/disable', { method: 'POST' });
      await nextEvent<{ etag: string }>(theirs, 'catalog', (d) => d.etag !== adminFirst);
      expect(visibleCatalogEtag(under.host.catalog(), asLimited)).toBe(first);
      // Then its own server's tool goes: the next catalog event it gets is that one.
      await admin.json('/api/servers/kitchen/disable', { method: 'POST' });
      await eventually(
        () => under.host.catalog().lookup('mcp__kitchen__echo'),
        (t) => t === undefined,
        { what: 'dropped kitchen from the catalog' },
      );
      const next = (await nextEvent<{ etag: string }>(mine, 'catalog')).data.etag;
      expect(next).not.toBe(first);
      expect(next).toBe(visibleCatalogEtag(under.host.catalog(), asLimited));
    } finally {
      await mine.cancel();
      await theirs.cancel();
      await admin.json('/api/servers/kitchen/enable', { method: 'POST' });
      await admin.json('/api/servers/other/enable', { method: 'POST' });
      await catalogHas(under.host, 'mcp__kitchen__echo');
      await catalogHas(under.host, 'mcp__other__echo');
    }
  });
});

describe("the chain's refusals on /api", () => {
  it('are ApiError JSON with their status and headers; MCP paths keep JSON-RPC', async () => {
    const small = await under.gatewayWith({
      limits: { bodyBytes: 64 },
      rateLimit: { perIp: { burst: 3, perSecond: 0.001 } },
    });
    const big = await small.request('/api/tools/mcp__kitchen__echo/call', {
      body: { arguments: { text: 'x'.repeat(200) } },
      csrf: 'unused',
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // The 413 was refused before the rate limit; the burst of 3 is used by the next three.
    for (let i = 0; i < 3; i++) expect((await small.request('/api/tools')).status).toBe(200);
    const limitedRate = await small.request('/api/tools');
    expect(limitedRate.status).toBe(429);
    expect(limitedRate.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await limitedRate.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('Retry after'),
    });
    const mcp = await fetch(`${small.base}/mcp`, { method: 'POST', body: '{}' });
    expect(((await mcp.json()) as { jsonrpc?: string }).jsonrpc).toBe('2.0');
  });
});

describe('event streams', () => {
  it('attach to the host and the inbox once, and let go when the last one ends', async () => {
    const counts = () => ({
      servers: under.host.listenerCount('servers'),
      events: under.host.listenerCount('event'),
      added: under.host.inbox.listenerCount('added'),
    });
    const before = counts();
    expect(before.added).toBe(0);
    const one = await admin.stream('/api/stream');
    const two = await admin.stream('/api/stream');
    await nextEvent(one, 'inbox');
    await nextEvent(two, 'inbox');
    expect(counts()).toEqual({ servers: before.servers + 1, events: before.events + 1, added: 1 });
    await one.cancel();
    await eventually(counts, (c) => c.added === 1 && c.servers === before.servers + 1, {
      what: 'kept the feed',
    });
    await two.cancel();
    await eventually(
      counts,
      (c) => c.added === 0 && c.servers === before.servers && c.events === before.events,
      {
        what: 'let go of the host',
      },
    );
  });

  it('end when the gateway closes', async () => {
    const extra = await under.gatewayWith({});
    const stream = await extra.stream('/api/stream');
    await nextEvent(stream, 'servers');
    const ended = (async () => {
      for (let i = 0; i < 100; i++) if ((await stream.next()) === undefined) return true;
      return false;
    })();
    await extra.close();
    expect(await ended).toBe(true);
  });
});
