import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOB,
  clients,
  connectClient,
  type ReplicaFleet,
  replicaTestsUnavailable,
  startReplicaFleet,
} from './replica-fleet.js';

/**
 * What replicas share besides sessions. The idempotency cache, through the store: a call
 * repeated with the same key on another replica gets the first call's result, and the
 * upstream is called once, whether the repeat comes after the first call or at the same time.
 * The rate limits: each of N replicas grants 1/N of the configured rate, so behind the
 * round-robin balancer a principal, or an address, gets the configured rate, not N times it.
 * Behind the balancer every client comes from the balancer's address: the address test sends
 * from there (without a token, refused after the address limit), and runs before the principal
 * test, whose requests it would otherwise share a bucket with.
 */
const unavailable = replicaTestsUnavailable();
if (unavailable) console.warn(`skipping the replica shared-state tests: ${unavailable}`);

let fleet: ReplicaFleet;
const PRINCIPAL_BURST = 20;
const PRINCIPAL_RATE = 5;
// Well above the principal's, so the address limit never decides the principal test.
const ADDRESS_BURST = 100;
const ADDRESS_RATE = 30;

beforeAll(async () => {
  if (unavailable) return;
  fleet = await startReplicaFleet({
    count: 3,
    gateway: {
      rateLimit: {
        perIp: { burst: ADDRESS_BURST, perSecond: ADDRESS_RATE },
        perPrincipal: { burst: PRINCIPAL_BURST, perSecond: PRINCIPAL_RATE },
      },
    },
  });
}, 180_000);

afterAll(async () => {
  await clients.closeAll();
  await fleet?.close();
}, 60_000);

/** A 2026-07-28 client of one replica (not the balancer: the test decides where each call goes). */
const clientOf = async (origin: string) => (await connectClient(origin, { era: '2026' })).client;

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

/**
 * Requests from `workers` loops, as fast as they are answered, for `ms`: their statuses and
 * how long it took.
 */
async function hammer(
  send: () => Promise<number>,
  options: { workers: number; ms: number },
): Promise<{ statuses: number[]; seconds: number }> {
  const statuses: number[] = [];
  const started = Date.now();
  const worker = async () => {
    for (let i = 0; i < 1_000 && Date.now() - started < options.ms; i++) statuses.push(await send());
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  return { statuses, seconds: (Date.now() - started) / 1000 };
}

describe.skipIf(unavailable !== undefined)('the rate limits across replicas', () => {
  it('grant an address the configured rate through the balancer, within 10 %', async () => {
    // No token: refused with 401 right after the address limit.
    const { statuses, seconds } = await hammer(
      () =>
        fetch(`${fleet.balancer.origin}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      { workers: 8, ms: 5_000 },
    );
    const granted = statuses.filter((s) => s !== 429).length;
    const expected = ADDRESS_BURST + ADDRESS_RATE * seconds;
    console.log(
      `${JSON.stringify(countBy(statuses))}: granted ${granted} of ${statuses.length} in ${seconds.toFixed(2)} s; configured ${expected.toFixed(0)}`,
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 429 && s !== 401)).toEqual([]);
    expect(granted).toBeGreaterThanOrEqual(Math.floor(expected * 0.9));
    expect(granted).toBeLessThanOrEqual(Math.ceil(expected * 1.1));
  });

  it('grant a principal the configured rate through the balancer, within 10 %', async () => {
    // Plain requests of bob's (a sessionless POST: refused after the limits, with 400), eight
    // at a time, as fast as they are answered.
    const request = () =>
      fetch(`${fleet.balancer.origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${BOB}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    const { statuses, seconds } = await hammer(request, { workers: 8, ms: 6_000 });
    const granted = statuses.filter((s) => s !== 429).length;
    const expected = PRINCIPAL_BURST + PRINCIPAL_RATE * seconds;
    console.log(
      `${JSON.stringify(countBy(statuses))}: granted ${granted} of ${statuses.length} in ${seconds.toFixed(2)} s; configured ${expected.toFixed(0)}`,
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(granted).toBeGreaterThanOrEqual(Math.floor(expected * 0.9));
    expect(granted).toBeLessThanOrEqual(Math.ceil(expected * 1.1));
  });
});

function countBy(values: readonly number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
