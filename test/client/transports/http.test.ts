import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { type KitchenStats, startKitchenSinkHttp } from '../../fixtures/kitchen-sink.js';
import { kitchenSinkBin } from '../../fixtures/paths.js';

/** Streamable HTTP specifics against the kitchen sink: sessions, headers, errors. */
describe('Streamable HTTP', () => {
  let server: { url: string; close(): Promise<void>; stats: KitchenStats };

  beforeAll(async () => {
    server = await startKitchenSinkHttp({});
  });

  afterAll(async () => {
    await server.close();
  });

  function connection(extra: Record<string, unknown> = {}, logs: LogEntry[] = []): Connection {
    return new Connection({
      config: normalizeServerEntry({ name: 'kitchen', url: server.url, protocol: 'legacy', ...extra }),
      eraStore: new MemoryEraVerdictStore(),
      env: { SB_API_KEY: 'key-42' },
      onLog: (e) => logs.push(e),
    });
  }

  it('sends interpolated config headers and MCP-Protocol-Version after negotiation', async () => {
    const conn = connection({ headers: { 'X-Api-Key': '${SB_API_KEY}', 'X-Static': 'yes' } });
    await conn.connect();
    await conn.callTool('echo', { text: 'h' });
    expect(server.stats.lastHeaders['x-api-key']).toBe('key-42');
    expect(server.stats.lastHeaders['x-static']).toBe('yes');
    expect(server.stats.lastHeaders['mcp-protocol-version']).toBe('2025-11-25');
    expect(server.stats.lastHeaders['mcp-session-id']).toBeTruthy();
    expect(server.stats.lastHeaders.accept).toContain('application/json');
    expect(server.stats.lastHeaders.accept).toContain('text/event-stream');
    await conn.close();
  });

  it('ends the session with DELETE on close', async () => {
    const conn = connection();
    await conn.connect();
    const before = server.stats.deleteRequests;
    await conn.close();
    expect(server.stats.deleteRequests).toBe(before + 1);
  });

  it('re-initializes once when the session expires (HTTP 404) and retries the request', async () => {
    const logs: LogEntry[] = [];
    const conn = connection({}, logs);
    await conn.connect();
    const firstSession = (conn.activeTransport as { sessionId?: string }).sessionId;
    const sessions = server.stats.sessionsCreated;
    const expired = await fetch(new URL('/admin/expire-sessions', server.url), { method: 'POST' });
    expect(expired.ok).toBe(true);
    const r = await conn.callTool('echo', { text: 'after expiry' });
    expect(r.text).toBe('after expiry');
    expect(server.stats.sessionsCreated).toBe(sessions + 1);
    expect((conn.activeTransport as { sessionId?: string }).sessionId).not.toBe(firstSession);
    expect(logs.some((l) => l.text.includes('session expired'))).toBe(true);
    await conn.close();
  });

  it('auto mode probes once, then reuses the cached verdict', async () => {
    const store = new MemoryEraVerdictStore();
    const make = () =>
      new Connection({ config: normalizeServerEntry({ name: 'auto', url: server.url }), eraStore: store });
    const probes = () => server.stats.requests['server/discover'] ?? 0;
    const before = probes();
    const a = make();
    await a.connect();
    expect(a.era).toBe('modern');
    expect(probes()).toBe(before + 1);
    await a.close();
    const b = make();
    await b.connect();
    expect(b.era).toBe('modern');
    expect(probes()).toBe(before + 1);
    expect((await b.callTool('echo', { text: 'cached' })).text).toBe('cached');
    await b.close();
  });

  it('surfaces HTTP errors with status and body excerpt', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({
        name: 'wrong',
        url: new URL('/nope', server.url).href,
        protocol: '2026-07-28',
      }),
      eraStore: new MemoryEraVerdictStore(),
    });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error)).toBe(true);
    expect(error.details.status).toBe(404);
    expect(error.message).toMatch(/HTTP 404/);
  });

  it('reports an unreachable server with a typed error', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'gone', url: 'http://127.0.0.1:9/mcp', timeouts: { connect: 5 } }),
      eraStore: new MemoryEraVerdictStore(),
    });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'CONNECT_FAILED')).toBe(true);
    expect(error.message).toContain('"gone"');
  });
});

describe.each(['legacy', 'modern'] as const)('Streamable HTTP server dying mid-call (%s era)', (era) => {
  it('fails the pending call at once and reports the disconnect', async () => {
    const child = spawn(process.execPath, [kitchenSinkBin, '--transport', 'http'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      let url = '';
      for await (const line of createInterface({ input: child.stdout! })) {
        url = (JSON.parse(line) as { url: string }).url;
        break;
      }
      const conn = new Connection({
        config: normalizeServerEntry({ name: 'mortal', url, protocol: era }),
        eraStore: new MemoryEraVerdictStore(),
      });
      await conn.connect();
      const disconnected = new Promise((resolve) => conn.once('disconnected', resolve));
      const started = Date.now();
      const error = await conn
        .callTool('slow', { ms: 60_000 }, { onProgress: () => child.kill('SIGKILL') })
        .catch((e) => e);
      expect(isSwitchboardError(error, 'UPSTREAM_DISCONNECTED')).toBe(true);
      expect(Date.now() - started).toBeLessThan(3000);
      // The next request finds the server gone; the connection then reports the loss.
      const next = await conn.callTool('echo', { text: 'x' }).catch((e) => e);
      expect(isSwitchboardError(next, 'UPSTREAM_DISCONNECTED')).toBe(true);
      await disconnected;
      expect(conn.state).toBe('disconnected');
      await conn.close();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
