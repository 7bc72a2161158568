import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseErrorResponse } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import {
  type AddressJudge,
  createNetworkGuard,
  type ResolvedAddress,
} from '../../src/client/transports/guarded-fetch.js';
import { SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host, type ServerStatus } from '../../src/host/host.js';
import { openStore } from '../../src/storage/open-store.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { everythingBin, startNodeHttpServer } from '../helpers/servers.js';

/**
 * The guarded fetch and its seam in the host, on loopback only: the "forbidden" target is a
 * second listener on 127.0.0.2, so even a guard that let a connect through would reach
 * nothing beyond this machine (the namespace probes cover the real metadata and private
 * addresses). Each listener counts the connections it accepts.
 */

interface Listener {
  readonly server: Server;
  readonly port: number;
  connections: number;
  requests: string[];
}

async function listen(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Listener> {
  const server = createServer(handler);
  const listener: Listener = { server, port: 0, connections: 0, requests: [] };
  server.on('connection', () => listener.connections++);
  server.on('request', (req: IncomingMessage) => listener.requests.push(req.url ?? ''));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return Object.assign(listener, { port: (server.address() as AddressInfo).port });
}

const close = (l: Listener) =>
  new Promise<void>((resolve) => {
    l.server.closeAllConnections();
    l.server.close(() => resolve());
  });

describe('guarded fetch', () => {
  let allowed: Listener;
  let forbidden: Listener;
  const lookups: string[] = [];
  const answers = new Map<string, string[]>();
  const resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    lookups.push(hostname);
    const found = answers.get(hostname);
    if (!found) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  // Only 127.0.0.1 may be reached; anything else, in any spelling, is refused.
  const judge: AddressJudge = (host, addresses) =>
    addresses.every((a) => a === '127.0.0.1')
      ? undefined
      : new SwitchboardError('POLICY_DENIED', `refused ${host} at ${addresses.join(', ')}`, {
          details: { host },
        });

  beforeAll(async () => {
    forbidden = await listen('127.0.0.2', (_req, res) => res.end('forbidden reached'));
    allowed = await listen('127.0.0.1', (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to) return res.writeHead(302, { location: to.replace('PORT', String(forbidden.port)) }).end();
      if (req.url === '/oauth-error')
        return res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":"invalid_grant","error_description":"expired"}');
      res.end(`ok ${req.url}`);
    });
    answers.set('good.test', ['127.0.0.1']);
    answers.set('evil.test', ['127.0.0.2']);
    answers.set('mixed.test', ['127.0.0.1', '127.0.0.2']);
    answers.set('mapped.test', ['::ffff:127.0.0.2']);
  });

  afterAll(async () => {
    await close(allowed);
    await close(forbidden);
  });

  afterEach(() => {
    lookups.length = 0;
  });

  it('resolves once per new socket, not per request, and answers with the global Response', async () => {
    const guarded = createNetworkGuard({ judge, resolve }).open();
    const before = allowed.connections;
    try {
      for (let i = 0; i < 10; i++) {
        const response = await guarded.fetch(`http://good.test:${allowed.port}/n${i}`);
        expect(response).toBeInstanceOf(Response);
        expect(await response.text()).toBe(`ok /n${i}`);
      }
      // One lookup per socket the listener accepted; kept-alive sockets carry the rest.
      expect(lookups.length).toBe(allowed.connections - before);
      expect(lookups.length).toBeLessThan(10);
      // The SDK recognises OAuth error bodies by `instanceof Response`.
      const error = await parseErrorResponse(
        await guarded.fetch(`http://good.test:${allowed.port}/oauth-error`),
      );
      expect(error.code).toBe('invalid_grant');
    } finally {
      await guarded.close();
    }
  });

  it.each([
    ['a name resolving to a refused address', 'http://evil.test:PORT/'],
    ['a name resolving to an allowed and a refused address', 'http://mixed.test:PORT/'],
    ['a name resolving to a mapped form', 'http://mapped.test:PORT/'],
    ['an IP literal', 'http://127.0.0.2:PORT/'],
    ['an IPv4-mapped literal', 'http://[::ffff:127.0.0.2]:PORT/'],
    ['a short-form literal', 'http://127.2:PORT/'],
  ])('refuses %s before any socket opens', async (_what, target) => {
    const guarded = createNetworkGuard({ judge, resolve }).open();
    const before = forbidden.connections;
    try {
      const url = target.replace('PORT', String(forbidden.port));
      await expect(guarded.fetch(url)).rejects.toMatchObject({ code: 'POLICY_DENIED' });
      expect(forbidden.connections).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  it.each([
    ['to a name resolving to a refused address', 'http://evil.test:PORT/'],
    ['to a refused literal', 'http://127.0.0.2:PORT/'],
    ['to a mapped literal', 'http://[::ffff:7f00:2]:PORT/'],
  ])('judges every redirect hop: %s', async (_what, to) => {
    const guarded = createNetworkGuard({ judge, resolve }).open();
    const before = forbidden.connections;
    try {
      const url = `http://good.test:${allowed.port}/?to=${encodeURIComponent(to)}`;
      await expect(guarded.fetch(url)).rejects.toMatchObject({ code: 'POLICY_DENIED' });
      // With redirects left to the caller (as the SDK's transports do), the 302 comes back.
      const manual = await guarded.fetch(url, { redirect: 'manual' });
      expect(manual.status).toBe(302);
      expect(forbidden.connections).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  it('closes its sockets with the connection: a new one resolves afresh', async () => {
    const guard = createNetworkGuard({ judge, resolve });
    const first = guard.open();
    await (await first.fetch(`http://good.test:${allowed.port}/a`)).text();
    await first.close();
    await expect(first.fetch(`http://good.test:${allowed.port}/b`)).rejects.toThrow();
    const second = guard.open();
    await (await second.fetch(`http://good.test:${allowed.port}/c`)).text();
    await second.close();
    expect(lookups).toEqual(['good.test', 'good.test']);
  });
});

describe('the transports go through the guard', () => {
  it('HTTP+SSE: the event stream and the POSTs, each socket resolved through the guard', async () => {
    const server = await startNodeHttpServer(everythingBin, ['sse'], '/sse');
    const lookups: string[] = [];
    const network = createNetworkGuard({
      judge: (_host, addresses) =>
        addresses.every((a) => a === '127.0.0.1')
          ? undefined
          : new SwitchboardError('POLICY_DENIED', 'refused'),
      resolve: async (hostname) => {
        lookups.push(hostname);
        return [{ address: hostname === 'old.test' ? '127.0.0.1' : '127.0.0.2', family: 4 }];
      },
    });
    // old.test resolves only through the guard's resolver: a request past the guard (the
    // stream's GET or a POST) would fail to resolve instead of reaching the server.
    const at = (host: string) => server.url.replace('127.0.0.1', host);
    try {
      const conn = new Connection({
        config: normalizeServerEntry({ name: 'old', url: at('old.test'), transport: 'sse' }),
        eraStore: new MemoryEraVerdictStore(),
        network,
      });
      await conn.connect();
      expect((await conn.callTool('echo', { message: 'guarded' })).text).toBe('Echo: guarded');
      await conn.close();
      expect(lookups.length).toBeGreaterThanOrEqual(1);
      expect(lookups.every((l) => l === 'old.test')).toBe(true);
      const refused = new Connection({
        config: normalizeServerEntry({ name: 'bad', url: at('bad.test'), transport: 'sse' }),
        eraStore: new MemoryEraVerdictStore(),
        network,
      });
      await expect(refused.connect()).rejects.toMatchObject({ code: 'POLICY_DENIED' });
      await refused.close();
    } finally {
      await server.close();
    }
  });
});

describe('the host guards registrations, not config-file servers', () => {
  let kitchen: KitchenHttpHandle;
  let dataDir: string;
  let host: Host | undefined;
  const lookups: string[] = [];
  const resolver = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    lookups.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };

  beforeAll(async () => {
    kitchen = await startKitchenSinkHttp({ era: 'legacy' });
  });

  afterAll(async () => {
    await kitchen.close();
  });

  afterEach(async () => {
    await host?.close();
    host = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    lookups.length = 0;
  });

  async function settle(h: Host, names: readonly string[]): Promise<readonly ServerStatus[]> {
    const signal = AbortSignal.timeout(30_000);
    const done = new Set(['connected', 'failed', 'needs_auth']);
    for await (const list of h.serverUpdates(signal)) {
      if (names.every((n) => done.has(list.find((s) => s.name === n)?.state ?? ''))) return list;
    }
    throw new Error(`not settled: ${JSON.stringify(h.servers().map((s) => [s.name, s.state]))}`);
  }

  it('connects a config-file server to loopback in the daemon profile, without a lookup', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-guard-'));
    host = await Host.create({
      dataDir,
      servers: [normalizeServerEntry({ name: 'file', url: kitchen.url, protocol: 'legacy' })],
      governance: { profile: 'daemon' },
      resolver,
      firstConnectDelaysMs: [],
    });
    const list = await settle(host, ['file']);
    expect(list.find((s) => s.name === 'file')?.state).toBe('connected');
    expect(lookups).toEqual([]);
    // The same URL registered at run time is refused, saying why and what to do.
    await expect(host.register({ name: 'agent', url: kitchen.url }, 'agent')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(
        /127\.0\.0\.1, a loopback address .*refused: the daemon profile refuses private addresses by default\. Set governance\.network\.allowPrivate to true/,
      ),
    });
    expect(host.servers().map((s) => s.name)).toEqual(['file']);
  });

  it('refuses a restored registration at connect, shows why in its status, and does not retry it', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-guard-'));
    const store = await openStore(join(dataDir, 'switchboard.db'));
    const port = new URL(kitchen.url).port;
    await store.servers.upsert({
      name: 'stored',
      entry: { url: `http://restored.test:${port}/mcp`, protocol: 'legacy' },
      enabled: true,
      source: 'agent',
    });
    await store.close();
    const initializes = kitchen.stats.requests.initialize ?? 0;
    host = await Host.create({
      dataDir,
      governance: { profile: 'daemon' },
      resolver,
      firstConnectDelaysMs: [],
    });
    const status = (await settle(host, ['stored'])).find((s) => s.name === 'stored');
    expect(status).toMatchObject({
      state: 'failed',
      source: 'agent',
      error: {
        code: 'POLICY_DENIED',
        message: expect.stringContaining('restored.test resolves to 127.0.0.1, a loopback address'),
      },
    });
    expect(lookups).toEqual(['restored.test']);
    expect(kitchen.stats.requests.initialize ?? 0).toBe(initializes);
    // Still failed after a while of event-loop turns: no retry loop behind it.
    host.reload('stored');
    const again = (await settle(host, ['stored'])).find((s) => s.name === 'stored');
    expect(again?.error?.code).toBe('POLICY_DENIED');
    expect(lookups).toEqual(['restored.test', 'restored.test']);
    expect(kitchen.stats.requests.initialize ?? 0).toBe(initializes);
  });

  it('lets the interactive profile reach loopback, and says so', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-guard-'));
    host = await Host.create({ dataDir, resolver, firstConnectDelaysMs: [] });
    const port = new URL(kitchen.url).port;
    await host.register({ name: 'dev', url: `http://dev.test:${port}/mcp`, protocol: 'legacy' }, 'api');
    const status = (await settle(host, ['dev'])).find((s) => s.name === 'dev');
    expect(status?.state).toBe('connected');
    expect(lookups.length).toBeGreaterThanOrEqual(2); // registration, then the connect itself
    expect(lookups.every((l) => l === 'dev.test')).toBe(true);
  });
});
