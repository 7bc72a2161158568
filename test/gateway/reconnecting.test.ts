import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSession } from '../../src/agents/session.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { RECONNECTING_RPC_CODE } from '../../src/gateway/mcp/upstream-calls.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { ApiClient, loginCookie } from './api/api-harness.js';
import { inMemoryGatewayClient } from './in-memory-gateway.js';
import { modernClient, quietLog, rpcError } from './modern-client.js';

/**
 * While a server reconnects, what is asked of it is answered "reconnecting, retry" with a code
 * of its own, not "unknown tool" or "resource not found" (which a client takes as final): by
 * the host, and by the gateway in both eras, for tools, resources and prompts. A caller whose
 * grants do not reach the server still hears "unknown". The server (the kitchen fixture behind
 * a gate) starts at once the first time and, after it is killed, waits to start again until
 * the test opens the gate, so "reconnecting" lasts as long as the test needs it.
 */

let dir: string;
let host: Host;
let gateway: HttpGateway;

const GATE = `
import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [dir, kitchen] = process.argv.slice(2);
const again = existsSync(dir + '/started');
writeFileSync(dir + '/started', '');
writeFileSync(dir + '/pid', String(process.pid));
const deadline = Date.now() + 60_000;
while (again && !existsSync(dir + '/open') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
// The fixture reads its own options from argv: it is given none.
process.argv = [process.argv[0], kitchen];
await import(pathToFileURL(kitchen).href);
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-reconnecting-'));
  await writeFile(join(dir, 'gate.mjs'), GATE);
  host = await Host.create({
    dataDir: join(dir, 'data'),
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({
        name: 'flaky',
        command: process.execPath,
        args: [join(dir, 'gate.mjs'), dir, kitchenSinkBin],
        timeouts: { connect: 60 },
      }),
    ],
  });
  await catalogHas(host, 'mcp__flaky__echo');
  gateway = await startHttpGateway(host, resolveGateway({ port: 0, consent: 'off' }), { log: quietLog });
  // Kill the server; it is held reconnecting until the gate opens.
  process.kill(Number(await readFile(join(dir, 'pid'), 'utf8')), 'SIGKILL');
  await eventually(
    () => host.servers().find((s) => s.name === 'flaky')?.state,
    (state) => state === 'reconnecting',
    { what: 'saw flaky reconnecting' },
  );
  await eventually(
    () => host.catalog().lookup('mcp__flaky__echo'),
    (found) => found === undefined,
    { what: 'saw the catalog without flaky' },
  );
}, 60_000);

afterAll(async () => {
  await writeFile(join(dir, 'open'), '').catch(() => undefined);
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('while a server reconnects', () => {
  it('the host answers calls, reads and prompt gets with UPSTREAM_RECONNECTING', async () => {
    for (const attempt of [
      () => host.callTool('mcp__flaky__echo', { text: 'hi' }),
      () => host.readResource('flaky', 'kitchen://text'),
      () => host.getPrompt('flaky', 'greet', { name: 'x' }),
    ]) {
      const error = await rejection(attempt());
      expect(isSwitchboardError(error, 'UPSTREAM_RECONNECTING'), String(error)).toBe(true);
      expect((error as { details: unknown }).details).toMatchObject({ server: 'flaky', retryable: true });
      expect(String((error as Error).message)).toContain('Server "flaky" is reconnecting');
    }
    // A tool no server offered is still unknown.
    expect(await rejection(host.callTool('mcp__flaky__nothing_like_it'))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  for (const era of ['2025', '2026-07-28'] as const) {
    it(`the gateway (${era} client) answers with the retryable code for tools, resources and prompts`, async () => {
      const client =
        era === '2025'
          ? new Client(
              { name: 'reconnecting-test', version: '1.0.0' },
              { versionNegotiation: { mode: 'legacy' } },
            )
          : await modernClient(gateway.url, {});
      if (era === '2025') await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
      try {
        const asks = [
          () => client.callTool({ name: 'mcp__flaky__echo', arguments: { text: 'hi' } }),
          () => client.readResource({ uri: 'kitchen://text' }),
          () => client.getPrompt({ name: 'mcp__flaky__greet', arguments: { name: 'x' } }),
        ];
        for (const ask of asks) {
          const error = (await rpcError(ask())) as { code?: number; message?: string; data?: unknown };
          expect(error?.code, error?.message).toBe(RECONNECTING_RPC_CODE);
          expect(error.message).toContain('is reconnecting');
          expect(error.data).toMatchObject({
            code: 'UPSTREAM_RECONNECTING',
            server: 'flaky',
            retryable: true,
          });
        }
        const unknown = await rpcError(client.callTool({ name: 'mcp__nobody__echo', arguments: {} }));
        expect(unknown?.code).toBe(-32602);
      } finally {
        await client.close();
      }
    });
  }

  it("an agent session's model is told to retry, not to look for another tool", async () => {
    const session = AgentSession.open(host, 'reconnecting-chat');
    const outcome = await session.execute('mcp__flaky__echo', { text: 'hi' });
    expect(outcome.result.isError).toBe(true);
    expect(outcome.text).toContain('is reconnecting');
    expect(outcome.text).toContain('Retry in a moment');
    expect((await session.execute('mcp__nobody__echo', {})).text).toContain('Use search_tools');
  });

  it('the HTTP API answers a call 503 with Retry-After', async () => {
    const api = new ApiClient(new URL(gateway.url).origin, loginCookie(gateway));
    const response = await api.request('/api/tools/mcp__flaky__echo/call', {
      body: { arguments: { text: 'hi' } },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { details: unknown } };
    expect(body.error.details).toMatchObject({ server: 'flaky', state: 'reconnecting', retryable: true });
  });

  it('a caller whose grants do not reach the server hears "unknown", as if it did not exist', async () => {
    const client = await inMemoryGatewayClient(host, { id: 'other-team', allows: (s) => s !== 'flaky' });
    try {
      const call = await rpcError(client.callTool({ name: 'mcp__flaky__echo', arguments: {} }));
      expect(call).toMatchObject({ code: -32602 });
      expect(call?.message).toContain('Unknown tool');
      const read = (await rpcError(client.readResource({ uri: 'kitchen://text' }))) as { code?: number };
      expect(read.code).not.toBe(RECONNECTING_RPC_CODE);
    } finally {
      await client.close();
    }
  });

  it('once it is back, the same call succeeds', async () => {
    await writeFile(join(dir, 'open'), '');
    await catalogHas(host, 'mcp__flaky__echo');
    expect(existsSync(join(dir, 'started'))).toBe(true);
    const result = await host.callTool('mcp__flaky__echo', { text: 'back' });
    expect(result.text).toContain('back');
    // Nothing is held as away any more.
    expect(host.catalog().away).toBeUndefined();
  });

  it("a gateway caller's reads and prompt gets are audited under its own name", async () => {
    await catalogHas(host, 'mcp__flaky__echo');
    const client = await inMemoryGatewayClient(host, { id: 'reader-7', allows: () => true });
    try {
      await eventually(
        () => host.catalog().resources.some((r) => r.item.uri === 'kitchen://text'),
        (found) => found,
        { what: 'saw the kitchen resources back' },
      );
      await client.readResource({ uri: 'kitchen://text' });
      await client.getPrompt({ name: 'mcp__flaky__greet', arguments: { name: 'x' } });
    } finally {
      await client.close();
    }
    const { entries } = await host.audit({});
    const mine = entries.filter((e) => e.actor === 'reader-7').map((e) => e.action);
    expect(mine).toEqual(expect.arrayContaining(['resource_read', 'prompt_get']));
  });
});
