import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { everythingBin, type RunningHttpServer, startNodeHttpServer } from '../helpers/servers.js';

/** The legacy HTTP+SSE transport (2024-11-05), against server-everything's `sse` mode. */
describe('legacy HTTP+SSE', () => {
  let server: RunningHttpServer;

  beforeAll(async () => {
    server = await startNodeHttpServer(everythingBin, ['sse'], '/sse');
  });

  afterAll(async () => {
    await server.close();
  });

  it('connects when configured as sse', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'old', url: server.url, transport: 'sse' }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
    expect(conn.era).toBe('legacy');
    expect((await conn.callTool('echo', { message: 'over sse' })).text).toBe('Echo: over sse');
    await conn.close();
  });

  it('falls back from Streamable HTTP to HTTP+SSE when the POST gets a 4xx', async () => {
    const logs: LogEntry[] = [];
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'old-auto', url: server.url }),
      eraStore: new MemoryEraVerdictStore(),
      onLog: (e) => logs.push(e),
    });
    await conn.connect();
    expect(logs.some((l) => l.source === 'lifecycle' && l.text.includes('legacy HTTP+SSE'))).toBe(true);
    expect((await conn.callTool('get-sum', { a: 20, b: 22 })).text).toContain('42');
    await conn.close();
  });
});
