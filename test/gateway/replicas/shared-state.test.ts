import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, type ReplicaFleet, replicaTestsUnavailable, startReplicaFleet } from './replica-fleet.js';

/**
 * What replicas share through the store besides sessions: the idempotency cache. A call
 * repeated with the same key on another replica gets the first call's result, and the
 * upstream is called once, whether the repeat comes after the first call or at the same time.
 */
const unavailable = replicaTestsUnavailable();
if (unavailable) console.warn(`skipping the replica shared-state tests: ${unavailable}`);

let fleet: ReplicaFleet;
const clients: Client[] = [];

beforeAll(async () => {
  if (unavailable) return;
  fleet = await startReplicaFleet({ count: 3 });
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await fleet?.close();
}, 60_000);

/** A 2026-07-28 client of one replica (not the balancer: the test decides where each call goes). */
async function clientOf(origin: string): Promise<Client> {
  const client = new Client(
    { name: 'shared-state', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    }),
  );
  clients.push(client);
  return client;
}

const upstreamCalls = () => fleet.upstream.requests['tools/call'] ?? 0;

async function addTool(client: Client, key: string): Promise<string | undefined> {
  const result = await client.callTool({
    name: 'mcp__kitchen__add_tool',
    arguments: {},
    _meta: { idempotencyKey: key },
  });
  return (result.content as { text?: string }[])[0]?.text;
}

describe.skipIf(unavailable !== undefined)('the idempotency cache across replicas', () => {
  it('answers a repeated key on another replica with the first result, calling the upstream once', async () => {
    const [a, b, c] = await Promise.all(fleet.replicas.map((r) => clientOf(r.origin)));
    const before = upstreamCalls();
    const first = await addTool(a!, 'one-after-another');
    expect(first).toMatch(/dynamic_/);
    expect(await addTool(b!, 'one-after-another')).toBe(first);
    expect(await addTool(c!, 'one-after-another')).toBe(first);
    expect(upstreamCalls() - before).toBe(1);

    // The same key on all three at once: one runs it, the others wait for its result.
    const together = await Promise.all([a, b, c].map((client) => addTool(client!, 'all-at-once')));
    expect(new Set(together).size).toBe(1);
    expect(together[0]).not.toBe(first);
    expect(upstreamCalls() - before).toBe(2);

    // Another key is another call.
    expect(await addTool(b!, 'another')).not.toBe(first);
    expect(upstreamCalls() - before).toBe(3);
  });
});
