import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin, misbehavingBin } from '../fixtures/paths.js';

/**
 * A gateway started while its servers are still coming up: a client that lists once right
 * away sees them (the first lists wait, bounded, for the servers to settle), a call made
 * before the list finds its tool, and /readyz says 503 until they are up while /healthz says
 * 200 all along. The slow server takes 2.5 s to answer anything (misbehaving slow-start).
 */
const silent = { access: () => undefined, warn: () => undefined, error: () => undefined };
let dir: string;
let host: Host | undefined;
let gateway: HttpGateway | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-startup-'));
});
afterEach(async () => {
  await gateway?.close();
  await host?.close();
  gateway = undefined;
  host = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<HttpGateway> {
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    connection: { env: { ...process.env, MISBEHAVING_DELAY_MS: '2500' } },
    servers: [
      normalizeServerEntry({ name: 'quick', command: process.execPath, args: [kitchenSinkBin] }),
      normalizeServerEntry({
        name: 'slow',
        command: process.execPath,
        args: [misbehavingBin, '--mode', 'slow-start'],
        protocol: 'legacy',
      }),
    ],
  });
  const settings = resolveGateway(parseGateway({ port: 0, auth: { mode: 'none' } }, 'test.json'));
  gateway = await startHttpGateway(host, settings, { log: silent });
  return gateway;
}

describe('a gateway whose servers are still starting', () => {
  it('is live at once, ready once they are up, and its first list has them all', async () => {
    const { url } = await start();
    const base = new URL(url).origin;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const early = await fetch(`${base}/readyz`);
    // Witnessed: the slow server has not answered yet, so the gateway is not ready.
    const slowState = host!.servers().find((s) => s.name === 'slow')?.state;
    if (slowState === 'connecting') {
      expect(early.status).toBe(503);
      expect(await early.json()).toMatchObject({ status: 'starting', servers: 2 });
    }

    const client = new Client({ name: 'lists-once', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('mcp__quick__echo');
      expect(names.some((n) => n.startsWith('mcp__slow__'))).toBe(true);
      expect(host!.servers().find((s) => s.name === 'slow')?.state).toBe('connected');
    } finally {
      await client.close();
    }
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', servers: 2, connected: 2, starting: 0 });
  }, 60_000);

  it('finds a tool called before any list, once its server is up', async () => {
    const { url } = await start();
    const client = new Client({ name: 'calls-first', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const result = await client.callTool({ name: 'mcp__slow__echo', arguments: { text: 'there' } });
      expect(JSON.stringify(result.content)).toContain('there');
    } finally {
      await client.close();
    }
  }, 60_000);
});
