import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { conformanceUpstreamBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { quietLog } from './modern-client.js';

/**
 * SEP-2243 `Mcp-Param-*` headers through the whole gateway over HTTP: a 2026-07-28 `tools/call`
 * of a tool whose `x-mcp-header` properties are mirrored into headers is served when the
 * headers agree (plain or Base64-encoded, and whatever their case) and refused with 400 /
 * -32020 when one is missing or disagrees.
 */
let dir: string;
let host: Host;
let gateway: HttpGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-param-headers-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({ name: 'conf', command: process.execPath, args: [conformanceUpstreamBin] }),
    ],
  });
  await catalogHas(host, 'mcp__conf__test_x_mcp_header');
  gateway = await startHttpGateway(
    host,
    resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off' }),
    { log: quietLog },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'test_x_mcp_header',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'test_x_mcp_header',
        arguments: { region: 'eu-west', priority: 3 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'param-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Mcp-Param-* headers through the gateway', () => {
  it('serves a call whose headers agree, plain, Base64-encoded or in another case', async () => {
    const plain = await call({ 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Priority': '3' });
    expect(plain.status).toBe(200);
    expect(JSON.stringify(plain.body)).toContain('eu-west');
    const encoded = `=?base64?${Buffer.from('eu-west').toString('base64')}?=`;
    const base64 = await call({ 'mcp-param-region': encoded, 'MCP-PARAM-PRIORITY': '3' });
    expect(base64.status).toBe(200);
  });

  it('refuses a call whose header is missing or disagrees with the body, naming the header', async () => {
    const missing = await call({ 'Mcp-Param-Priority': '3' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: -32020, data: { header: 'Mcp-Param-Region' } });
    const wrong = await call({ 'Mcp-Param-Region': 'us-east', 'Mcp-Param-Priority': '3' });
    expect(wrong.status).toBe(400);
    expect((wrong.body.error as { message: string }).message).toMatch(/Mcp-Param-Region/);
  });
});
