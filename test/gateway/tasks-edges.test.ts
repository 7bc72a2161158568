import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { hashToken, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { conformanceUpstreamBin, kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { quietLog } from './modern-client.js';

/**
 * The gateway's tasks against hostile and careless clients, and their ttl: a task is its
 * principal's alone (another principal's poll, result, update or cancel is answered as for an
 * id that does not exist, and changes nothing); forged, malformed and old-style ids, and a
 * seeded run of random ones, are refused alike; each era's methods refuse the other era; a
 * task and its result are kept for the ttl (a client's ask cut to the gateway's longest),
 * then gone.
 */
const TOKENS = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };
const TASKS = 'io.modelcontextprotocol/tasks';
const declares = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } } };
type Raw = Record<string, unknown>;
const raw = (value: unknown) => value as Raw;
const TTL_MS = 1500;
const MAX_TTL_MS = 2500;

let dir: string;
let host: Host;
let gateway: HttpGateway;
const connections: Connection[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-tasks-edges-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [
      { name: 'old', command: process.execPath, args: [kitchenSinkBin, '--era', 'legacy'] },
      { name: 'new', command: process.execPath, args: [conformanceUpstreamBin, '--transport', 'stdio'] },
    ].map((s) => normalizeServerEntry(s)),
  });
  await catalogHas(host, 'mcp__old__task_sleep');
  await catalogHas(host, 'mcp__new__slow_compute');
  gateway = await startHttpGateway(
    host,
    resolveGateway({
      port: 0,
      consent: 'off',
      auth: {
        mode: 'bearer',
        tokens: [
          { id: 'alice', sha256: hashToken(TOKENS.alice) },
          { id: 'bob', sha256: hashToken(TOKENS.bob) },
        ],
      },
      tasks: { ttlMs: TTL_MS, maxTtlMs: MAX_TTL_MS, pollIntervalMs: 200 },
    }),
    { log: quietLog },
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

async function as(who: keyof typeof TOKENS, protocol: 'legacy' | 'modern'): Promise<Connection> {
  const connection = new Connection({
    config: normalizeServerEntry({ name: 'gateway', url: gateway.url, protocol, api_key: TOKENS[who] }),
  });
  await connection.connect();
  connections.push(connection);
  return connection;
}

/** The JSON-RPC code a request is refused with, and its message; undefined when it succeeds. */
async function refusal(promise: Promise<unknown>): Promise<{ code: unknown; message: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return { code: raw(raw(error).details).rpcCode, message: String(raw(error).message) };
  }
}

describe("another principal's task", () => {
  it('is unknown to bob in every method, and stays as it was for alice', async () => {
    const alice = await as('alice', 'legacy');
    const aliceModern = await as('alice', 'modern');
    const bob = await as('bob', 'legacy');
    const bobModern = await as('bob', 'modern');
    const run = String(
      raw(
        (
          await alice.request(
            'tools/call',
            { name: 'mcp__old__task_sleep', arguments: { ms: 60_000 }, task: { ttl: MAX_TTL_MS } },
            raw,
          )
        ).task,
      ).taskId,
    );
    const relayed = String(
      (
        await aliceModern.request(
          'tools/call',
          { name: 'mcp__new__slow_compute', arguments: { seconds: 30 }, ...declares },
          untunnelTaskResult,
        )
      ).taskId,
    );
    // The client-facing id names neither the server nor the upstream's own task id.
    const stored = await host.tasks.get(relayed);
    expect(stored).toMatchObject({ kind: 'relayed', principal: 'alice', server: 'new' });
    expect(relayed).not.toContain(stored!.upstreamId!);
    expect(relayed).not.toContain('new');

    const unknown = await refusal(bob.request('tasks/get', { taskId: 'sbt-AAAAAAAAAAAAAAAAAAAAAA' }, raw));
    expect(unknown?.code).toBe(-32602);
    for (const taskId of [run, relayed]) {
      for (const [connection, method, extra] of [
        [bob, 'tasks/get', {}],
        [bob, 'tasks/result', {}],
        [bob, 'tasks/cancel', {}],
        [bobModern, 'tasks/get', declares],
        [bobModern, 'tasks/update', { inputResponses: {}, ...declares }],
        [bobModern, 'tasks/cancel', declares],
      ] as const) {
        const refused = await refusal(connection.request(method, { taskId, ...extra }, raw));
        expect(refused?.code, `${method} ${taskId}`).toBe(-32602);
        // The same words as for an id that never existed: bob learns nothing.
        const words = (message: string | undefined) => message?.slice(message.indexOf('Unknown task'));
        expect(words(refused?.message.replace(taskId, 'ID'))).toBe(
          words(unknown?.message.replace('sbt-AAAAAAAAAAAAAAAAAAAAAA', 'ID')),
        );
      }
    }
    expect(await alice.request('tasks/get', { taskId: run }, raw)).toMatchObject({ status: 'working' });
    expect(await aliceModern.request('tasks/get', { taskId: relayed, ...declares }, raw)).toMatchObject({
      status: 'working',
    });
    await alice.request('tasks/cancel', { taskId: run }, raw);
    await aliceModern.request('tasks/cancel', { taskId: relayed, ...declares }, raw);
  });
});

describe('forged and malformed task ids', () => {
  it('refuses them all with -32602, the old server-naming form included', async () => {
    const alice = await as('alice', 'legacy');
    const forged = [
      'sbt-AAAAAAAAAAAAAAAAAAAAAA',
      // The old form routed by the server named in the id: no longer a way in.
      `sbt1.${Buffer.from('new').toString('base64url')}.anything`,
      "sbt-' OR '1'='1",
      'sbt-',
      '',
      'x'.repeat(10_000),
      `sbt-${'A'.repeat(10_000)}`,
    ];
    for (const taskId of forged) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        expect(
          (await refusal(alice.request(method, { taskId }, raw)))?.code,
          `${method} ${taskId.slice(0, 40)}`,
        ).toBe(-32602);
      }
    }
    for (const params of [{}, { taskId: 42 }, { taskId: { $ne: null } }, { taskId: ['sbt-x'] }]) {
      expect((await refusal(alice.request('tasks/get', params, raw)))?.code).toBe(-32602);
    }
  });

  it('refuses a seeded run of random ids, and the gateway keeps answering', async () => {
    const alice = await as('alice', 'modern');
    let seed = 0x5eed_7a5c;
    const next = () => {
      // xorshift32: the same ids on every run.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const alphabet = 'sbt-_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./%\'"\\\u0000é';
    for (let i = 0; i < 200; i++) {
      const length = next() % 80;
      let id = i % 2 === 0 ? 'sbt-' : '';
      for (let j = 0; j < length; j++) id += alphabet[next() % alphabet.length];
      const refused = await refusal(alice.request('tasks/get', { taskId: id, ...declares }, raw));
      expect(refused?.code, JSON.stringify(id)).toBe(-32602);
    }
    expect((await alice.callTool('mcp__old__echo', { text: 'still here' })).text).toBe('still here');
  });
});

/** One 2026-07-28 request sent by hand (the extension declared), its JSON-RPC answer. */
async function rawModern(method: string, params: Raw, token: string): Promise<Raw> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'by-hand', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return JSON.parse(data) as Raw;
}

describe("each era's methods", () => {
  it('refuse the other era, and a request without the extension', async () => {
    const legacy = await as('alice', 'legacy');
    const modern = await as('alice', 'modern');
    const taskId = String(
      raw(
        (
          await legacy.request(
            'tools/call',
            { name: 'mcp__old__task_sleep', arguments: { ms: 10 }, task: {} },
            raw,
          )
        ).task,
      ).taskId,
    );
    // The SDK's client refuses to send tasks/result on 2026-07-28 at all: sent by hand, the gateway refuses it.
    expect((await rawModern('tasks/result', { taskId }, TOKENS.alice)).error).toMatchObject({ code: -32601 });
    expect((await refusal(legacy.request('tasks/update', { taskId, inputResponses: {} }, raw)))?.code).toBe(
      -32601,
    );
    expect((await refusal(modern.request('tasks/get', { taskId }, raw)))?.code).toBe(-32021);
  });
});

describe('the ttl of a task', () => {
  it("keeps a task and its result for its ttl, the client's ask cut to the longest, then forgets it", async () => {
    const legacy = await as('alice', 'legacy');
    const created = raw(
      (
        await legacy.request(
          'tools/call',
          { name: 'mcp__old__task_sleep', arguments: { ms: 10 }, task: { ttl: 3_600_000 } },
          raw,
        )
      ).task,
    );
    expect(created.ttl).toBe(MAX_TTL_MS);
    const taskId = String(created.taskId);
    const createdAt = Date.parse(String(created.createdAt));
    const result = await legacy.request('tasks/result', { taskId }, raw);
    expect(JSON.stringify(result.content)).toContain('task done after 10ms');
    // Polled until it is gone: never before its ttl ran out.
    const gone = await eventually(
      async () => ({ at: Date.now(), refused: await refusal(legacy.request('tasks/get', { taskId }, raw)) }),
      (probe) => probe.refused !== undefined,
      { what: 'forgot the task', timeoutMs: 20_000, everyMs: 100 },
    );
    expect(gone.refused?.code).toBe(-32602);
    expect(gone.at).toBeGreaterThanOrEqual(createdAt + MAX_TTL_MS);
    expect((await refusal(legacy.request('tasks/result', { taskId }, raw)))?.code).toBe(-32602);
    // Gone from the store: the sweep deletes it (here, at once).
    expect(await host.tasks.get(taskId)).toBeUndefined();
    expect(await host.tasks.prune()).toBeGreaterThanOrEqual(1);
  });

  it('gives a 2026-07-28 task the default ttl', async () => {
    const modern = await as('alice', 'modern');
    const created = await modern.request(
      'tools/call',
      { name: 'mcp__old__task_sleep', arguments: { ms: 10 }, ...declares },
      untunnelTaskResult,
    );
    expect(created).toMatchObject({ resultType: 'task', ttlMs: TTL_MS, pollIntervalMs: 200 });
  });
});
