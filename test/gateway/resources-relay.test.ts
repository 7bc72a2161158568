import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { createGatewayServer } from '../../src/gateway/mcp/gateway-server.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import { Host } from '../../src/host/host.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { conformanceUpstreamBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';

/**
 * Resources across the gateway from a real host with three real upstreams: two kitchen sinks
 * (2025-era HTTP sessions, in this process so the test can change a resource and see who is
 * subscribed) offering the same URIs, and the conformance fixture (stdio) offering its own.
 * Clients are SDK v2 clients on in-memory transports, each its own gateway session.
 */
let dataDir: string;
let host: Host;
let a: KitchenHttpHandle;
let b: KitchenHttpHandle;
const clients: Client[] = [];

const A_TEXT = 'switchboard://resource/a/kitchen://text';
const B_TEXT = 'switchboard://resource/b/kitchen://text';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-gw-res-'));
  [a, b] = await Promise.all([
    startKitchenSinkHttp({ era: 'legacy' }),
    startKitchenSinkHttp({ era: 'legacy' }),
  ]);
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({ name: 'a', url: a.url }),
      normalizeServerEntry({ name: 'b', url: b.url }),
      normalizeServerEntry({ name: 'conf', command: process.execPath, args: [conformanceUpstreamBin] }),
    ],
  });
  await eventually(
    () => host.catalog().resources.map((r) => `${r.server} ${r.item.uri}`),
    (all) =>
      ['a kitchen://text', 'b kitchen://text', 'conf test://static-text'].every((x) => all.includes(x)),
    { what: 'saw the resources of all three servers' },
  );
});

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await host?.close();
  await Promise.all([a?.close(), b?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

/** A new gateway session and its client; `updates` collects the resource URIs it is told changed. */
async function connect(): Promise<{ client: Client; updates: string[]; next: () => Promise<string> }> {
  const server = createGatewayServer({
    host,
    principal: { id: 'tester', allows: () => true },
    naming: 'passthrough-unique',
    expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
    consent: 'off',
    limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
    idempotency: new IdempotencyCache(60_000),
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'resource-client', version: '1.0.0' });
  const updates: string[] = [];
  let waiting: ((uri: string) => void) | undefined;
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updates.push(n.params.uri);
    waiting?.(n.params.uri);
    waiting = undefined;
  });
  await client.connect(clientSide);
  clients.push(client);
  // The next update this client hears; bounded, so a missing one fails here rather than at the test's timeout.
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('never heard notifications/resources/updated')),
        10_000,
      );
      waiting = (uri) => {
        clearTimeout(timer);
        resolve(uri);
      };
    });
  return { client, updates, next };
}

const firstContent = (r: { contents: object[] }) => r.contents[0] as { uri: string; text?: string };
const upstreamRequests = (k: KitchenHttpHandle, method: string) => k.stats.requests[method] ?? 0;

describe('gateway resources across servers', () => {
  it('maps URIs two servers offer, reads each from its own server, and passes a unique one through', async () => {
    a.world.touchResource('kitchen://text'); // now a's text differs from b's
    const { client } = await connect();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'switchboard://servers',
        A_TEXT,
        B_TEXT,
        'switchboard://resource/a/kitchen://blob',
        'switchboard://resource/b/kitchen://blob',
        'test://static-text',
      ]),
    );
    expect(uris).not.toContain('kitchen://text');

    expect(firstContent(await client.readResource({ uri: A_TEXT }))).toMatchObject({
      uri: A_TEXT,
      text: 'hello text (revision 1)',
    });
    expect(firstContent(await client.readResource({ uri: B_TEXT }))).toMatchObject({
      uri: B_TEXT,
      text: 'hello text',
    });
    expect(firstContent(await client.readResource({ uri: 'test://static-text' }))).toMatchObject({
      uri: 'test://static-text',
      text: 'This is the content of the static text resource.',
    });
    // The original of a mapped URI could be either server's: not found, naming the URI.
    await expect(client.readResource({ uri: 'kitchen://text' })).rejects.toMatchObject({
      data: { uri: 'kitchen://text' },
    });

    // Templates: the colliding one mapped per server, its expansions read back from that server.
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining([
        'switchboard://resource/a/kitchen://items/{id}',
        'switchboard://resource/b/kitchen://items/{id}',
        'test://template/{id}/data',
        'switchboard://servers/{name}/status',
      ]),
    );
    const item = new UriTemplate('switchboard://resource/b/kitchen://items/{id}').expand({ id: 'x y' });
    expect(firstContent(await client.readResource({ uri: item }))).toMatchObject({
      uri: item,
      text: 'item x y',
    });
    const data = await client.readResource({ uri: 'test://template/42/data' });
    expect(firstContent(data).uri).toBe('test://template/42/data');
  });

  it("subscribes upstream once for every session, and passes the server's update to each subscriber", async () => {
    const one = await connect();
    const two = await connect();
    const subscribesBefore = upstreamRequests(a, 'resources/subscribe');
    await one.client.subscribeResource({ uri: A_TEXT });
    await two.client.subscribeResource({ uri: A_TEXT });
    await one.client.subscribeResource({ uri: B_TEXT });
    expect(upstreamRequests(a, 'resources/subscribe') - subscribesBefore).toBe(1);
    expect(a.world.subscribedResources).toEqual(['kitchen://text']);
    expect(b.world.subscribedResources).toEqual(['kitchen://text']);

    // a's change reaches both sessions under a's mapped URI, and nobody under b's.
    const heardOne = one.next();
    const heardTwo = two.next();
    expect(a.world.touchResource('kitchen://text')).toBe(1); // one upstream connection told
    expect(await heardOne).toBe(A_TEXT);
    expect(await heardTwo).toBe(A_TEXT);
    const fromB = one.next();
    b.world.touchResource('kitchen://text');
    expect(await fromB).toBe(B_TEXT);
    expect(one.updates).toEqual([A_TEXT, B_TEXT]);
    expect(two.updates).toEqual([A_TEXT]);

    // A subscriber reads the new contents from the right server.
    expect(firstContent(await two.client.readResource({ uri: A_TEXT })).text).toBe(
      `hello text (revision ${a.world.resourceRevision('kitchen://text')})`,
    );
    // A unique URI and the gateway's own resources are accepted; an unknown one is not found.
    await one.client.subscribeResource({ uri: 'test://watched-resource' });
    await one.client.subscribeResource({ uri: 'switchboard://servers' });
    await expect(one.client.subscribeResource({ uri: 'nowhere://x' })).rejects.toMatchObject({
      data: { uri: 'nowhere://x' },
    });
    await one.client.close();
    await two.client.close();
  });

  it('unsubscribes upstream when the last subscriber unsubscribes or its session closes', async () => {
    await eventually(
      () => [...a.world.subscribedResources, ...b.world.subscribedResources],
      (left) => left.length === 0,
      { what: 'saw the previous sessions leave' },
    );
    const one = await connect();
    const two = await connect();
    const unsubscribesBefore = upstreamRequests(a, 'resources/unsubscribe');
    await one.client.subscribeResource({ uri: A_TEXT });
    await two.client.subscribeResource({ uri: A_TEXT });
    await one.client.unsubscribeResource({ uri: A_TEXT });
    expect(a.world.subscribedResources).toEqual(['kitchen://text']); // two still listens
    await two.client.unsubscribeResource({ uri: A_TEXT });
    expect(a.world.subscribedResources).toEqual([]);
    expect(upstreamRequests(a, 'resources/unsubscribe') - unsubscribesBefore).toBe(1);
    expect(a.world.touchResource('kitchen://text')).toBe(0);

    // A session that closes without unsubscribing takes its subscriptions with it.
    await one.client.subscribeResource({ uri: B_TEXT });
    expect(b.world.subscribedResources).toEqual(['kitchen://text']);
    await one.client.close();
    await eventually(
      () => b.world.subscribedResources,
      (left) => left.length === 0,
      { what: "saw b's subscription end with the session" },
    );
    // Subscribing again after that works as the first time.
    await two.client.subscribeResource({ uri: B_TEXT });
    const heard = two.next();
    b.world.touchResource('kitchen://text');
    expect(await heard).toBe(B_TEXT);
  });
});
