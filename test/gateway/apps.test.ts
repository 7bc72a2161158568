import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { startHttpGateway } from '../../src/gateway/http-gateway.js';
import type { GatewayPrincipal } from '../../src/gateway/mcp/served-catalog.js';
import { Host } from '../../src/host/host.js';
import { appsServerBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { inMemoryGatewayClient } from './in-memory-gateway.js';
import { modernClient, quietLog, rpcError } from './modern-client.js';

/**
 * MCP Apps through the gateway, on the apps fixture (a real process): a client that declares
 * the extension is told the gateway speaks it and gets the upstream's tools and views as the
 * server wrote them, `_meta` byte for byte, app-only tools included; one that does not gets
 * neither the extension, nor `_meta.ui`, nor views, nor app-only tools, listed or called.
 */
const UI = 'io.modelcontextprotocol/ui';
const aware = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
const everyone: GatewayPrincipal = { id: 'apps-gw', allows: () => true };

let dataDir: string;
let host: Host;
let direct: Client;
let withApps: Client;
let withoutApps: Client;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-apps-gw-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    connection: { apps: true },
    servers: [normalizeServerEntry({ name: 'apps', command: process.execPath, args: [appsServerBin] })],
  });
  await catalogHas(host, 'mcp__apps__show_counter');
  // What the server itself says, for comparing: an extension-aware client of its own.
  direct = new Client({ name: 'direct', version: '1.0.0' }, { capabilities: aware });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [appsServerBin] }));
  withApps = await inMemoryGatewayClient(host, everyone, { capabilities: aware });
  withoutApps = await inMemoryGatewayClient(host, everyone);
});

afterAll(async () => {
  await Promise.all([direct?.close(), withApps?.close(), withoutApps?.close()]);
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a client that declares MCP Apps', () => {
  it('is told the gateway speaks the extension', () => {
    expect(withApps.getServerCapabilities()?.extensions?.[UI]).toEqual({
      mimeTypes: ['text/html;profile=mcp-app'],
    });
  });

  it("gets every tool with the server's own _meta, byte for byte, app-only tools included", async () => {
    const upstream = (await direct.listTools()).tools;
    const served = new Map((await withApps.listTools()).tools.map((t) => [t.name, t]));
    expect(upstream.length).toBeGreaterThan(5);
    for (const tool of upstream) {
      const mine = served.get(`mcp__apps__${tool.name}`);
      expect(mine, tool.name).toBeDefined();
      expect(JSON.stringify(mine!._meta)).toBe(JSON.stringify(tool._meta));
    }
    expect(served.get('mcp__apps__increment')?._meta).toEqual({
      ui: { resourceUri: 'ui://counter/view.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://counter/view.html',
    });
  });

  it('reads a view as the server wrote it and calls an app-only tool', async () => {
    const uri = 'ui://counter/view.html';
    const theirs = await direct.readResource({ uri });
    const mine = await withApps.readResource({ uri });
    expect(JSON.stringify(mine.contents)).toBe(JSON.stringify(theirs.contents));
    const called = await withApps.callTool({ name: 'mcp__apps__increment', arguments: {} });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toMatchObject({ count: expect.any(Number) });
  });
});

describe('a client that does not', () => {
  it('is not told of the extension', () => {
    expect(withoutApps.getServerCapabilities()?.extensions?.[UI]).toBeUndefined();
  });

  it('gets only the model’s tools, without _meta.ui', async () => {
    const tools = (await withoutApps.listTools()).tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain('mcp__apps__show_counter');
    expect(names).toContain('mcp__apps__secret_note');
    expect(names).not.toContain('mcp__apps__increment');
    expect(names).not.toContain('mcp__apps__report');
    for (const tool of tools) {
      expect(tool._meta?.ui, tool.name).toBeUndefined();
      expect(tool._meta?.['ui/resourceUri'], tool.name).toBeUndefined();
    }
  });

  it('cannot call an app-only tool, as if it did not exist', async () => {
    await expect(withoutApps.callTool({ name: 'mcp__apps__increment', arguments: {} })).rejects.toThrow(
      /mcp__apps__increment/,
    );
  });

  it('sees no views, listed or read', async () => {
    const uris = (await withoutApps.listResources()).resources.map((r) => r.uri);
    expect(uris.some((u) => u.startsWith('ui://'))).toBe(false);
    expect((await withApps.listResources()).resources.map((r) => r.uri)).toContain('ui://counter/view.html');
    await expect(withoutApps.readResource({ uri: 'ui://counter/view.html' })).rejects.toThrow();
  });
});

describe('over HTTP, both eras, the fast paths included', () => {
  it('serves app-only tools to a client that declared MCP Apps and to no other', async () => {
    const gateway = await startHttpGateway(host, resolveGateway({ port: 0 }), { log: quietLog });
    const clients: Client[] = [];
    const legacy = async (capabilities: Record<string, unknown>) => {
      const client = new Client({ name: 'legacy', version: '1.0.0' }, { capabilities });
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
      clients.push(client);
      return client;
    };
    const modern = async (capabilities: Record<string, unknown>) => {
      const client = await modernClient(gateway.url, capabilities);
      clients.push(client);
      return client;
    };
    try {
      for (const open of [legacy, modern]) {
        const yes = await open(aware);
        const no = await open({});
        const listed = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
        expect(await listed(yes)).toContain('mcp__apps__increment');
        expect(await listed(no)).not.toContain('mcp__apps__increment');
        // As a host does before it renders the view (apps-binding.test.ts: what comes without).
        await yes.readResource({ uri: 'ui://counter/view.html' });
        const called = await yes.callTool({ name: 'mcp__apps__increment', arguments: {} });
        expect(called.isError, open.name).toBeFalsy();
        const refused = await rpcError(no.callTool({ name: 'mcp__apps__increment', arguments: {} }));
        expect(refused?.message, open.name).toMatch(/mcp__apps__increment/);
        // A tool of the model's own is served to both, through the fast path where it runs.
        expect((await no.callTool({ name: 'mcp__apps__plain', arguments: {} })).isError).toBeFalsy();
      }
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await gateway.close();
    }
  });
});
