import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GovernanceConfig } from '../../../src/core/config/governance-config.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { createGatewayServer, type GatewayServerOptions } from '../../../src/gateway/mcp/gateway-server.js';
import { IdempotencyCache } from '../../../src/gateway/mcp/idempotency.js';
import { Host } from '../../../src/host/host.js';
import { kitchenSinkBin } from '../../fixtures/paths.js';
import { catalogHas, eventually } from '../../helpers/wait.js';

/**
 * The gateway's MCP server over in-memory transports, in front of a real host with a real
 * upstream (the kitchen sink): listing, calling through policy with the consent question put
 * to the calling client, progress across the hop, resources, prompts and own resources.
 */
let dataDir: string;
let host: Host;
const clients: Client[] = [];

async function startHost(governance: Partial<GovernanceConfig>) {
  host = await Host.create({
    dataDir,
    governance,
    servers: [
      normalizeServerEntry({
        name: 'kitchen',
        command: process.execPath,
        args: [kitchenSinkBin],
        roots: [{ uri: 'file:///caller', name: 'callers' }],
      }),
    ],
  });
  await catalogHas(host, 'mcp__kitchen__echo');
}

async function connect(
  overrides: Partial<GatewayServerOptions> = {},
  answer?: 'accept' | 'decline',
): Promise<{ client: Client; asked: string[] }> {
  const server = createGatewayServer({
    host,
    principal: { id: 'tester', allows: () => true },
    naming: 'namespaced',
    expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
    consent: 'on',
    limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
    idempotency: new IdempotencyCache(60_000),
    ...overrides,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: answer };
    });
  }
  await client.connect(b);
  clients.push(client);
  return { client, asked };
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-gw-'));
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
});

const firstText = (r: { contents: object[] }) => {
  const c = r.contents[0];
  return c && 'text' in c && typeof c.text === 'string' ? c.text : '';
};
const text = (r: unknown) => ((r as { content: { text?: string }[] }).content[0]?.text ?? '') as string;

describe('gateway MCP server', () => {
  it('asks the calling client before a call policy asks about, and runs it on yes', async () => {
    await startHost({ mode: 'auto-edit' });
    const { client, asked } = await connect({}, 'accept');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('mcp__kitchen__echo');
    const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'through' } });
    expect(text(result)).toBe('through');
    expect(asked).toEqual([expect.stringMatching(/^Allow kitchen\.echo with \{"text":"through"\}\?/)]);
    const audit = (await host.audit({ actor: 'tester' })).entries;
    expect(audit[0]).toMatchObject({ outcome: 'ok', details: expect.objectContaining({ approved: true }) });
  });

  it('refuses when the client says no, and fails closed for a client that cannot be asked', async () => {
    await startHost({ mode: 'auto-edit' });
    const { client } = await connect({}, 'decline');
    const declined = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'x' } });
    expect(declined.isError).toBe(true);
    expect(text(declined)).toContain('not approved (the client declined)');
    const mute = await connect();
    const refused = await mute.client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('does not support elicitation');
  });

  it('relays progress, caps inputs, and answers unknown or filtered tools as errors', async () => {
    await startHost({ mode: 'full-auto' });
    const { client } = await connect({
      expose: { tools: ['kitchen/e*', 'kitchen/p*'], resources: ['*'], prompts: ['*'] },
    });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'mcp__kitchen__echo',
      'mcp__kitchen__embedded',
      'mcp__kitchen__progress',
    ]);
    const progress: number[] = [];
    const done = await client.callTool(
      { name: 'mcp__kitchen__progress', arguments: { steps: 3, delayMs: 5 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(text(done)).toBe('done');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    await expect(
      client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'y'.repeat(2_000) } }),
    ).rejects.toThrow(/string is 2000 characters long; the limit is 1000/);
    await expect(client.callTool({ name: 'mcp__kitchen__add', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it('serves resources, templates, prompts and its own status resources', async () => {
    await startHost({ mode: 'full-auto' });
    const { client } = await connect({ naming: 'passthrough-unique' });
    const resources = await client.listResources();
    expect(resources.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['switchboard://servers', 'kitchen://text']),
    );
    expect((await client.readResource({ uri: 'kitchen://text' })).contents[0]).toMatchObject({
      text: 'hello text',
    });
    const item = await client.readResource({ uri: 'kitchen://items/7' });
    expect(item.contents[0]).toMatchObject({ text: 'item 7' });
    const servers = JSON.parse(firstText(await client.readResource({ uri: 'switchboard://servers' })));
    expect(servers).toEqual([expect.objectContaining({ name: 'kitchen', state: 'connected' })]);
    const status = JSON.parse(
      firstText(await client.readResource({ uri: 'switchboard://servers/kitchen/status' })),
    );
    expect(status).toMatchObject({ name: 'kitchen', state: 'connected' });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]).toMatchObject({
      role: 'user',
      content: { type: 'text', text: 'Hello, Ada!' },
    });
    // Passthrough names: the upstream's own.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    // An unknown resource is a not-found error that names the URI (SEP-2164).
    await expect(client.readResource({ uri: 'nowhere://x' })).rejects.toMatchObject({
      data: { uri: 'nowhere://x' },
    });
    // Subscriptions and log levels are accepted; a completion for an unknown ref is empty.
    await client.subscribeResource({ uri: 'kitchen://text' });
    await client.setLoggingLevel('debug');
    expect(
      await client.complete({
        ref: { type: 'ref/prompt', name: 'nope' },
        argument: { name: 'a', value: '' },
      }),
    ).toMatchObject({ completion: { values: [] } });
  });

  it("relays the server's log lines while a call runs to the calling client", async () => {
    await startHost({ mode: 'full-auto' });
    const { client } = await connect();
    const lines: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => void lines.push(n.params.data));
    await client.callTool({
      name: 'mcp__kitchen__notify',
      arguments: { method: 'notifications/message', params: { level: 'info', data: 'upstream says hi' } },
    });
    const deadline = Date.now() + 5_000;
    while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(lines).toEqual(['upstream says hi']);
  });

  it("puts the upstream's elicitation during a call to the client that made the call", async () => {
    await startHost({ mode: 'full-auto' });
    const { client, asked } = await connect({}, 'accept');
    const result = await client.callTool({ name: 'mcp__kitchen__confirm', arguments: {} });
    expect(asked).toEqual(['Please confirm']);
    expect(JSON.parse(text(result))).toMatchObject({ action: 'accept' });
  });

  it("answers the upstream's roots/list during a call with the calling client's roots, within the entry's", async () => {
    await startHost({ mode: 'full-auto' });
    const server = createGatewayServer({
      host,
      principal: { id: 'tester', allows: () => true },
      naming: 'namespaced',
      expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
      consent: 'off',
      limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
      idempotency: new IdempotencyCache(60_000),
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'roots-client', version: '1.0.0' }, { capabilities: { roots: {} } });
    client.setRequestHandler('roots/list', () => ({
      roots: [
        { uri: 'file:///caller/project', name: 'caller' },
        // Outside the entry's roots: a client may narrow what the server sees, never widen it.
        { uri: 'file:///', name: 'everything' },
        { uri: 'file:///caller/../etc', name: 'climbing' },
      ],
    }));
    await client.connect(b);
    clients.push(client);
    const theirs = await client.callTool({ name: 'mcp__kitchen__roots', arguments: {} });
    expect(JSON.parse(text(theirs))).toEqual([{ uri: 'file:///caller/project', name: 'caller' }]);
    // A client without roots: the upstream gets the entry's own roots.
    const { client: plain } = await connect({ consent: 'off' });
    const own = await plain.callTool({ name: 'mcp__kitchen__roots', arguments: {} });
    expect(JSON.parse(text(own))).toEqual([{ uri: 'file:///caller', name: 'callers' }]);
  });

  it("passes the client's cancellation upstream: the upstream's call is cancelled", async () => {
    await startHost({ mode: 'full-auto' });
    const { client } = await connect({ consent: 'off' });
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'mcp__kitchen__slow', arguments: { ms: 60_000 } },
      {
        signal: controller.signal,
        // The upstream's "started" progress says the call is running there: cancel then.
        onprogress: () => controller.abort('changed my mind'),
      },
    );
    await expect(call).rejects.toThrow();
    const count = await eventually(
      async () => text(await client.callTool({ name: 'mcp__kitchen__cancelled_count', arguments: {} })),
      (n) => n === '1',
      { what: 'saw the upstream cancel the call', timeoutMs: 10_000 },
    );
    expect(count).toBe('1');
  });

  it('serves the management tools only when turned on, under consent and the allow-lists', async () => {
    await startHost({ mode: 'auto-edit' });
    const { client: off } = await connect({}, 'accept');
    expect((await off.listTools()).tools.map((t) => t.name)).not.toContain('mcp__switchboard__list_mcp');

    // Changing servers needs a principal that may manage them; the others see list_mcp alone.
    const { client: reader } = await connect({ management: true }, 'accept');
    expect(
      (await reader.listTools()).tools.map((t) => t.name).filter((n) => n.includes('switchboard')),
    ).toEqual(['mcp__switchboard__list_mcp']);
    const { client, asked } = await connect(
      { management: true, principal: { id: 'tester', allows: () => true, canManage: true } },
      'accept',
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['mcp__switchboard__list_mcp', 'mcp__switchboard__register_mcp']),
    );
    const listed = await client.callTool({ name: 'mcp__switchboard__list_mcp', arguments: {} });
    expect(JSON.parse(text(listed)).servers.map((x: { name: string }) => x.name)).toEqual(['kitchen']);
    expect(asked).toEqual([]);
    const registered = await client.callTool({
      name: 'mcp__switchboard__register_mcp',
      arguments: { name: 'second', command: process.execPath, args: [kitchenSinkBin] },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Allow switchboard\.register_mcp with/);
    expect(JSON.parse(text(registered))).toEqual({ registered: 'second', transport: 'stdio' });
    await catalogHas(host, 'mcp__second__echo');
    const audit = (await host.audit({ actor: 'tester', server: 'switchboard' })).entries;
    expect(audit.map((e) => (e.details as { tool: string }).tool)).toEqual(['register_mcp', 'list_mcp']);

    const server = createGatewayServer({
      host,
      principal: { id: 'limited', allows: (s) => s !== 'switchboard' },
      naming: 'namespaced',
      expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
      consent: 'on',
      limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
      idempotency: new IdempotencyCache(60_000),
      management: true,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const limited = new Client({ name: 'limited', version: '1.0.0' });
    await limited.connect(b);
    clients.push(limited);
    expect((await limited.listTools()).tools.map((t) => t.name)).not.toContain('mcp__switchboard__list_mcp');
  });

  it('runs a repeated idempotent call once', async () => {
    await startHost({ mode: 'full-auto' });
    const { client } = await connect();
    const call = () =>
      client.callTool({ name: 'mcp__kitchen__add_tool', arguments: {}, _meta: { idempotencyKey: 'k-1' } });
    const [a, b] = [await call(), await call()];
    expect(text(a)).toBe(text(b));
    const after = await client.callTool({ name: 'mcp__kitchen__add_tool', arguments: {} });
    expect(text(after)).toBe('dynamic_2');
  });
});
