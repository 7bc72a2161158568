import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { createPrincipal } from '../../src/gateway/http/principal.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { createGatewayServer } from '../../src/gateway/mcp/gateway-server.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import { McpEndpoint } from '../../src/gateway/mcp/mcp-endpoint.js';
import { type GatewayPrincipal, servedTools, ViewChanges } from '../../src/gateway/mcp/served-catalog.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { mcpRequest, openSession, POST_HEADERS } from './mcp/session-client.js';
import { quietLog } from './modern-client.js';
import { SseReader } from './sse-events.js';

/**
 * What the MCP endpoint serves of its own is each principal's view, the one the API's server
 * list gives it: two principals with grants of one server each (alice: alpha, bob: beta) and
 * one with every grant (admin), in both eras — the `switchboard://servers` resources, their
 * reads, subscriptions and completions, the management tools, and which list-changed
 * notifications each one gets.
 */
const TOKENS = {
  alice: 'alice-token-0123456789',
  bob: 'bob-token-0123456789',
  admin: 'admin-token-0123456789',
};
const SERVERS = [
  { name: 'alpha', command: process.execPath, args: [kitchenSinkBin] },
  { name: 'beta', command: process.execPath, args: [kitchenSinkBin] },
];

let dir: string;
let host: Host;
let gateway: HttpGateway;
const clients: Client[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-views-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: SERVERS.map((s) => normalizeServerEntry(s)),
  });
  await catalogHas(host, 'mcp__alpha__echo');
  await catalogHas(host, 'mcp__beta__echo');
  const auth = {
    mode: 'bearer',
    tokens: [
      { id: 'alice', sha256: hashToken(TOKENS.alice), servers: ['alpha', 'switchboard'] },
      { id: 'bob', sha256: hashToken(TOKENS.bob), servers: ['beta', 'switchboard'] },
      { id: 'admin', sha256: hashToken(TOKENS.admin) },
    ],
  };
  const settings = resolveGateway(parseGateway({ port: 0, auth, management: true }, 'test.json'));
  gateway = await startHttpGateway(host, settings, { log: quietLog });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

type Who = keyof typeof TOKENS;
const ERAS = ['legacy', 'modern'] as const;

async function connect(who: Who, era: (typeof ERAS)[number]): Promise<Client> {
  const client = new SdkClient(
    { name: `views-${who}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** The server names `GET /api/servers` lists for `who`. */
async function apiServers(who: Who): Promise<string[]> {
  const response = await fetch(`${new URL(gateway.url).origin}/api/servers`, {
    headers: { authorization: `Bearer ${TOKENS[who]}` },
  });
  return ((await response.json()) as { servers: ApiServer[] }).servers.map((s) => s.name);
}

const text = (result: { contents: unknown[] }) => (result.contents[0] as { text: string }).text;
const code = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (error as { code?: unknown }).code,
  );

describe('the gateway’s own resources', () => {
  for (const era of ERAS) {
    it(`switchboard://servers lists what /api/servers lists for the same principal (${era})`, async () => {
      for (const who of ['alice', 'bob', 'admin'] as const) {
        const client = await connect(who, era);
        const listed = JSON.parse(text(await client.readResource({ uri: 'switchboard://servers' })));
        expect(
          listed.map((s: { name: string }) => s.name),
          who,
        ).toEqual(await apiServers(who));
      }
      expect(await apiServers('alice')).toEqual(['alpha']);
    });

    it(`a server the principal does not see has no status, no subscription and no completion (${era})`, async () => {
      const alice = await connect('alice', era);
      const own = JSON.parse(text(await alice.readResource({ uri: 'switchboard://servers/alpha/status' })));
      expect(own).toMatchObject({ name: 'alpha', state: 'connected' });
      // Not there, exactly as a server that does not exist: nothing tells the two apart.
      const hidden = await code(alice.readResource({ uri: 'switchboard://servers/beta/status' }));
      const absent = await code(alice.readResource({ uri: 'switchboard://servers/nope/status' }));
      // The SDK's ResourceNotFoundError: -32602 (MCP 2025-11-25 "Resources", error handling).
      expect(hidden).toBe(-32602);
      expect(hidden).toBe(absent);
      if (era === 'legacy') {
        expect(await code(alice.subscribeResource({ uri: 'switchboard://servers/alpha/status' }))).toBe('ok');
        expect(await code(alice.subscribeResource({ uri: 'switchboard://servers/beta/status' }))).toBe(
          -32602,
        );
      }
      const completed = await alice.complete({
        ref: { type: 'ref/resource', uri: 'switchboard://servers/{name}/status' },
        argument: { name: 'name', value: '' },
      });
      expect(completed.completion.values).toEqual(['alpha']);
      const admin = await connect('admin', era);
      const all = await admin.complete({
        ref: { type: 'ref/resource', uri: 'switchboard://servers/{name}/status' },
        argument: { name: 'name', value: 'b' },
      });
      expect(all.completion.values).toEqual(['beta']);
    });

    it(`the management tools list only visible servers, and only a principal that may manage changes them (${era})`, async () => {
      const alice = await connect('alice', era);
      const names = (await alice.listTools()).tools.map((t) => t.name);
      expect(names).toContain('mcp__switchboard__list_mcp');
      expect(names.filter((n) => n.startsWith('mcp__switchboard__'))).toEqual(['mcp__switchboard__list_mcp']);
      const listed = await alice.callTool({ name: 'mcp__switchboard__list_mcp', arguments: {} });
      const servers = (listed.structuredContent as { servers: { name: string }[] }).servers;
      expect(servers.map((s) => s.name)).toEqual(['alpha']);
      const register = await code(
        alice.callTool({
          name: 'mcp__switchboard__register_mcp',
          arguments: { name: 'evil', command: 'sh', args: ['-c', 'exit 0'] },
        }),
      );
      expect(register).toBe(-32602);
      expect(host.serverConfig('evil')).toBeUndefined();
      const admin = await connect('admin', era);
      expect((await admin.listTools()).tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['mcp__switchboard__register_mcp', 'mcp__switchboard__toggle_mcp']),
      );
    });
  }
});

describe('served views', () => {
  it('are cached by grants, not by id alone: two principals of one id are served their own', () => {
    const wide = createPrincipal({ id: 'sub-1', kind: 'jwt', grants: { servers: ['*'], tools: ['*'] } });
    const narrow = createPrincipal({
      id: 'sub-1',
      kind: 'jwt',
      grants: { servers: ['alpha'], tools: ['*'] },
    });
    const served = (p: GatewayPrincipal) => [...servedTools(host, p, 'namespaced', ['*'])].map(([n]) => n);
    expect(served(wide)).toContain('mcp__beta__echo');
    expect(served(narrow)).not.toContain('mcp__beta__echo');
    expect(served(narrow)).toContain('mcp__alpha__echo');
  });
});

describe('list-changed notifications', () => {
  it('go to the callers whose own view changed, in both eras, and to no one else', async () => {
    const settings = {
      naming: 'namespaced' as const,
      expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
    };
    const told = new Map<string, string[]>();
    const endpoint = new McpEndpoint({
      build: (principal) => {
        const server = createGatewayServer({
          host,
          principal,
          ...settings,
          consent: 'off',
          limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
          idempotency: new IdempotencyCache(60_000),
        });
        spyOnListChanged(server, principal.id, told);
        return server;
      },
      sessions: { idleTtlMs: 60_000, max: 10 },
      views: new ViewChanges(host, { ...settings, management: false }),
    });
    const principal = (id: string, servers: string[]) =>
      createPrincipal({ id, kind: 'token', grants: { servers, tools: ['*'] } });
    const alice = principal('alice', ['alpha']);
    const bob = principal('bob', ['beta']);
    const aliceListen = await listen(endpoint, alice);
    const bobListen = await listen(endpoint, bob);
    try {
      await openSession(endpoint, alice, { version: '2025-11-25' });
      await openSession(endpoint, bob, { version: '2025-11-25' });

      await host.setEnabled('beta', false);
      await eventually(
        () => host.catalog().lookup('mcp__beta__echo'),
        (t) => t === undefined,
        { what: 'dropped beta from the catalog' },
      );
      endpoint.listsChanged();
      // Sent synchronously by listsChanged: what each session's server was asked to send.
      expect(told.get('bob')).toEqual(['tools', 'prompts', 'resources']);
      expect(told.get('alice') ?? []).toEqual([]);
      // A listen stream's notification is queued as it is published: bob's is there, alice's not.
      expect(await bobListen.ready()).toBe('notifications/tools/list_changed');
      expect(await aliceListen.ready()).toBeUndefined();

      told.clear();
      await host.setEnabled('beta', true);
      await catalogHas(host, 'mcp__beta__echo');
      endpoint.listsChanged();
      expect(told.get('alice') ?? []).toEqual([]);
      expect(told.get('bob')).toEqual(['tools', 'prompts', 'resources']);
    } finally {
      await aliceListen.close();
      await bobListen.close();
      await endpoint.close();
    }
  }, 60_000);
});

/** Records which list-changed notifications `server` is asked to send, under `id`. */
function spyOnListChanged(server: Server, id: string, told: Map<string, string[]>): void {
  const note = (kind: string) => told.set(id, [...(told.get(id) ?? []), kind]);
  const wrap = (kind: string, send: () => Promise<void>) => () => {
    note(kind);
    return send();
  };
  server.sendToolListChanged = wrap('tools', server.sendToolListChanged.bind(server));
  server.sendPromptListChanged = wrap('prompts', server.sendPromptListChanged.bind(server));
  server.sendResourceListChanged = wrap('resources', server.sendResourceListChanged.bind(server));
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'views-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * A 2026-07-28 `subscriptions/listen` stream of `principal`, in process. `ready()` is the
 * method of a notification already queued on it (the handler queues as it publishes), or
 * undefined when none is.
 */
async function listen(
  endpoint: McpEndpoint,
  principal: GatewayPrincipal,
): Promise<{ ready(): Promise<string | undefined>; close(): Promise<void> }> {
  const body = {
    jsonrpc: '2.0',
    id: `listen-${principal.id}`,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      _meta: ENVELOPE,
    },
  };
  const headers = {
    ...POST_HEADERS,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'subscriptions/listen',
  };
  const response = await endpoint.handle(mcpRequest(body, headers), principal, body);
  const reader = new SseReader(response.body);
  const ack = JSON.parse((await reader.next())!.data) as { method: string };
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  return {
    ready: async () => {
      // Queued frames are read within a turn of the event loop; a pending read means none.
      const next = reader.next(1_000).then((e) => e && (JSON.parse(e.data) as { method: string }).method);
      const none = new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)));
      const first = await Promise.race([next, none]);
      if (first === undefined) next.catch(() => undefined);
      return first;
    },
    close: () => reader.cancel(),
  };
}
