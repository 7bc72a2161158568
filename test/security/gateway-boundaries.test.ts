import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { localCookieName } from '../../src/gateway/http/auth/local-token.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { quietLog } from '../gateway/modern-client.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * The gateway's boundaries under variants of the attacks an outside review made: what a
 * principal is served of the gateway's own resources (alice has the grants of `alpha` only),
 * the caps on everything a client sends on to a server (not only a call's values: names,
 * prompt arguments, completions, URIs, over the MCP endpoint and the API), and changes
 * without configured authentication, which need the owner's local token however else a
 * caller dresses up.
 */
const ALICE = 'alice-token-0123456789';
const ADMIN = 'admin-token-0123456789';
const LIMITS = { argumentBytes: 4_000, depth: 6, stringLength: 200, bodyBytes: 64_000 };
const kitchen = (name: string) =>
  normalizeServerEntry({ name, command: process.execPath, args: [kitchenSinkBin] });

let dir: string;
let host: Host;
let guarded: HttpGateway;
let open: HttpGateway;
const clients: Client[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-boundaries-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [kitchen('alpha'), kitchen('beta')],
  });
  await catalogHas(host, 'mcp__alpha__echo');
  await catalogHas(host, 'mcp__beta__echo');
  const auth = {
    mode: 'bearer',
    tokens: [
      { id: 'alice', sha256: hashToken(ALICE), servers: ['alpha', 'switchboard'] },
      { id: 'admin', sha256: hashToken(ADMIN) },
    ],
  };
  guarded = await startHttpGateway(
    host,
    resolveGateway(parseGateway({ port: 0, auth, consent: 'off', limits: LIMITS }, 'test.json')),
    { log: quietLog },
  );
  open = await startHttpGateway(host, resolveGateway({ port: 0, consent: 'off', management: true }), {
    log: quietLog,
  });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await guarded?.close();
  await open?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function connect(
  gateway: HttpGateway,
  era: 'legacy' | 'modern',
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'boundaries', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** The JSON-RPC error code `promise` fails with, or 'ok'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => (error as { code?: unknown }).code,
  );

const textOf = (result: { contents: unknown[] }) =>
  result.contents.map((c) => (c as { text?: string }).text ?? '').join('\n');

describe("a principal's view of the gateway's own resources", () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`no spelling of another server's URI reads it (${era})`, async () => {
      const alice = await connect(guarded, era, { authorization: `Bearer ${ALICE}` });
      const all = textOf(await alice.readResource({ uri: 'switchboard://servers' }));
      expect(all).toContain('alpha');
      expect(all).not.toContain('beta');
      for (const uri of [
        'switchboard://servers/beta',
        'switchboard://servers/beta/status',
        'switchboard://servers/BETA/status',
        'switchboard://servers/beta/status/',
        'switchboard://servers/%62eta/status',
        'switchboard://servers/alpha/../beta/status',
        'switchboard://servers/./beta/status',
        'switchboard://servers/beta%2fstatus',
        'switchboard://servers/beta/status?x=1',
        'switchboard://servers/beta/status#frag',
        'SWITCHBOARD://servers/beta/status',
        'switchboard://Servers/beta/status',
      ]) {
        const read = await alice.readResource({ uri }).then(
          (r) => textOf(r),
          () => undefined,
        );
        // Refused, or (for a URI that is not one of the gateway's own) nothing of beta's.
        if (read !== undefined) expect(read, uri).not.toMatch(/"name":\s*"beta"/);
      }
      const listed = await alice.listResources();
      expect(JSON.stringify(listed)).not.toContain('beta');
      const templates = await alice.listResourceTemplates();
      expect(JSON.stringify(templates)).not.toContain('beta');
      for (const value of ['', 'b', 'be', 'BETA', '%62']) {
        const completed = await alice.complete({
          ref: { type: 'ref/resource', uri: 'switchboard://servers/{name}/status' },
          argument: { name: 'name', value },
        });
        expect(completed.completion.values, value).not.toContain('beta');
      }
      const tools = (await alice.listTools()).tools.map((t) => t.name);
      expect(tools.some((t) => t.includes('beta'))).toBe(false);
      expect(await outcome(alice.callTool({ name: 'mcp__beta__echo', arguments: { text: 'x' } }))).toBe(
        -32602,
      );
      expect(await outcome(alice.getPrompt({ name: 'mcp__beta__greet', arguments: { name: 'x' } }))).toBe(
        -32602,
      );
    });
  }

  it('the API shows alice what the MCP endpoint does, and no more', async () => {
    const origin = new URL(guarded.url).origin;
    for (const path of ['/api/servers', '/api/tools', '/api/resources', '/api/prompts']) {
      const response = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${ALICE}` } });
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).not.toContain('beta');
    }
    const hidden = await fetch(`${origin}/api/servers/beta`, {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect([403, 404]).toContain(hidden.status);
  });
});

describe('caps on everything sent on to a server', () => {
  const deep = (levels: number): unknown => (levels === 0 ? 'x' : { a: deep(levels - 1) });
  const over: [string, Record<string, unknown>][] = [
    ['a long value', { text: 'x'.repeat(LIMITS.stringLength + 1) }],
    ['a long name', { ['k'.repeat(LIMITS.stringLength + 1)]: 1 }],
    ['a long string deep in an array', { text: 'x', list: [[['y'.repeat(LIMITS.stringLength + 1)]]] }],
    ['deep objects', { text: 'x', nested: deep(LIMITS.depth + 1) }],
    ['deep arrays', { text: 'x', nested: [[[[[[[[1]]]]]]]] }],
    ['many small values', { text: 'x', many: Array.from({ length: 1_000 }, (_, i) => `v${i}`) }],
    [
      'multi-byte text over the byte cap',
      { text: 'x', many: Array.from({ length: 40 }, () => '€'.repeat(60)) },
    ],
  ];

  for (const era of ['legacy', 'modern'] as const) {
    it(`a tool call, a prompt get, a completion and a read are refused over the caps (${era})`, async () => {
      const admin = await connect(guarded, era, { authorization: `Bearer ${ADMIN}` });
      for (const [what, args] of over) {
        const call = await admin.callTool({ name: 'mcp__alpha__echo', arguments: args }).then(
          () => 'ok',
          (error: unknown) => error as { code?: number; message?: string },
        );
        expect(call, what).toMatchObject({ code: -32602, message: expect.stringContaining('Refused:') });
      }
      const longArgument = { name: 'x'.repeat(LIMITS.stringLength + 1) };
      expect(await outcome(admin.getPrompt({ name: 'mcp__alpha__greet', arguments: longArgument }))).toBe(
        -32602,
      );
      expect(
        await outcome(
          admin.complete({
            ref: { type: 'ref/prompt', name: 'mcp__alpha__greet' },
            argument: { name: 'name', value: 'v'.repeat(LIMITS.stringLength + 1) },
          }),
        ),
      ).toBe(-32602);
      expect(
        await outcome(admin.readResource({ uri: `kitchen://items/${'9'.repeat(LIMITS.stringLength)}` })),
      ).toBe(-32602);
      // Within the caps, the same calls go through.
      expect(await outcome(admin.callTool({ name: 'mcp__alpha__echo', arguments: { text: 'fine' } }))).toBe(
        'ok',
      );
      expect(await outcome(admin.getPrompt({ name: 'mcp__alpha__greet', arguments: { name: 'x' } }))).toBe(
        'ok',
      );
    });
  }

  it("the API's call, prompt and read routes hold the same caps", async () => {
    const origin = new URL(guarded.url).origin;
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    for (const [what, args] of over) {
      const response = await fetch(`${origin}/api/tools/mcp__alpha__echo/call`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ arguments: args }),
      });
      expect(response.status, what).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message, what).toContain(
        'Refused:',
      );
    }
    const prompt = await fetch(`${origin}/api/prompts/alpha/greet`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ arguments: { name: 'x'.repeat(LIMITS.stringLength + 1) } }),
    });
    expect(prompt.status).toBe(400);
    const read = await fetch(
      `${origin}/api/resources/read?server=alpha&uri=${encodeURIComponent(`kitchen://items/${'9'.repeat(300)}`)}`,
      { headers },
    );
    expect(read.status).toBe(400);
  });

  it('a body over the cap is refused with 413, with or without a Content-Length', async () => {
    const url = new URL(guarded.url);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp__alpha__echo', arguments: { text: 'x'.repeat(LIMITS.bodyBytes) } },
    });
    for (const chunked of [false, true]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: Number(url.port),
            path: url.pathname,
            method: 'POST',
            headers: {
              authorization: `Bearer ${ADMIN}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...(chunked
                ? { 'transfer-encoding': 'chunked' }
                : { 'content-length': Buffer.byteLength(big) }),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        if (chunked) for (let i = 0; i < big.length; i += 8_192) req.write(big.slice(i, i + 8_192));
        else req.write(big);
        req.end();
      });
      expect(status, chunked ? 'chunked' : 'content-length').toBe(413);
    }
  });
});

describe('changes without configured authentication need the local token', () => {
  const sh = { name: 'evil', entry: { command: 'sh', args: ['-c', 'touch /tmp/never'] } };

  it('every other way of asking is refused, and nothing changes', async () => {
    const origin = new URL(open.url).origin;
    const port = Number(new URL(open.url).port);
    const token = open.localToken!;
    const attempts: [string, Record<string, string>, string][] = [
      ['no credential', {}, '/api/servers'],
      ['a token with one more character', { authorization: `Bearer ${token}x` }, '/api/servers'],
      ['a token one character short', { authorization: `Bearer ${token.slice(0, -1)}` }, '/api/servers'],
      [
        'the token as Basic',
        { authorization: `Basic ${Buffer.from(`local:${token}`).toString('base64')}` },
        '/api/servers',
      ],
      ['the token in the query', {}, `/api/servers?token=${token}`],
      ['the cookie of another port', { cookie: `${localCookieName(port + 1)}=${token}` }, '/api/servers'],
      ['an empty cookie', { cookie: `${localCookieName(port)}=` }, '/api/servers'],
      ['a forwarded-for header', { 'x-forwarded-for': '127.0.0.1' }, '/api/servers'],
    ];
    for (const [what, headers, path] of attempts) {
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'x-switchboard-csrf': 'guess' },
        body: JSON.stringify(sh),
        redirect: 'manual',
      });
      expect(response.status, what).toBeGreaterThanOrEqual(400);
      expect(response.status, what).toBeLessThan(500);
    }
    for (const method of ['DELETE', 'PATCH', 'PUT']) {
      const response = await fetch(`${origin}/api/servers/alpha`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'DELETE' ? null : JSON.stringify({ enabled: false }),
      });
      expect(response.status, method).toBeGreaterThanOrEqual(400);
    }
    expect(host.serverConfig('evil')).toBeUndefined();
    expect(host.servers().map((s) => [s.name, s.state])).toEqual([
      ['alpha', 'connected'],
      ['beta', 'connected'],
    ]);
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`an MCP client without the token is not served the tools that change servers (${era})`, async () => {
      // The dashboard's cookie counts on the dashboard's paths only, not on the MCP endpoint.
      const port = Number(new URL(open.url).port);
      const client = await connect(open, era, { cookie: `${localCookieName(port)}=${open.localToken}` });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('mcp__switchboard__register_mcp');
      const register = await outcome(
        client.callTool({
          name: 'mcp__switchboard__register_mcp',
          arguments: { name: 'evil', command: 'sh', args: ['-c', 'exit 0'] },
        }),
      );
      expect(register).toBe(-32602);
      expect(host.serverConfig('evil')).toBeUndefined();
    });
  }
});
