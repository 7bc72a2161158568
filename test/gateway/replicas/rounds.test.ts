import { describe, expect, it } from 'vitest';
import { kitchenSinkBin } from '../../fixtures/paths.js';
import { eventually } from '../../helpers/wait.js';
import { callRaw, type Raw, rpcError } from '../modern-client.js';
import { connectClient, fleetForFile } from './replica-fleet.js';

/**
 * A multi-round 2026-07-28 call whose next round only one replica can serve: each replica runs
 * its own stdio servers, and a 2025-era one's question is parked in the memory of the replica
 * that ran the call. Its `requestState` names that replica; any other relays the round there.
 * When that replica is gone the round is refused with what to do (start the call again).
 */
const run = fleetForFile(
  'round',
  {
    count: 3,
    gateway: { consent: 'off' },
    // One stdio server per replica, spoken to in the 2025 era: its questions are parked.
    servers: { local: { command: process.execPath, args: [kitchenSinkBin], protocol: 'legacy' } },
  },
  async (fleet) => {
    // Each replica has started its own.
    for (const replica of fleet.replicas) {
      const client = await clientOf(replica.origin);
      await eventually(
        async () => (await client.listTools()).tools.map((t) => t.name),
        (names) => names.includes('mcp__local__confirm'),
        { what: `listed mcp__local__confirm on ${replica.origin}`, timeoutMs: 60_000 },
      );
    }
  },
);

/** A 2026-07-28 client of `origin` that answers forms, handing `input_required` rounds back itself. */
const clientOf = async (origin: string) =>
  (
    await connectClient(origin, {
      era: '2026',
      capabilities: { elicitation: { form: {} } },
      rounds: 'caller',
    })
  ).client;

const content = { confirm: true, name: 'rounds', color: 'red' };
const text = (result: Raw) => (result.content as { text: string }[])[0]?.text;

/** The key of the only input request of an `input_required` round. */
function askedKey(round: Raw): string {
  expect(round.resultType).toBe('input_required');
  const keys = Object.keys(round.inputRequests as Record<string, unknown>);
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

describe.skipIf(run.skip)('rounds only one replica can serve', () => {
  it('are relayed to the replica that parked the call, from any other', async () => {
    const [a, b, c] = await Promise.all(run.fleet.replicas.map((r) => clientOf(r.origin)));
    for (const [start, next] of [
      [a, b],
      [b, c],
      [c, a],
    ] as const) {
      const first = await callRaw(start!, 'mcp__local__confirm');
      const key = askedKey(first);
      const final = await callRaw(next!, 'mcp__local__confirm', {
        inputResponses: { [key]: { action: 'accept', content } },
        requestState: first.requestState,
      });
      expect(JSON.parse(String(text(final)))).toEqual({ action: 'accept', content });
    }
    // Through the balancer, an SDK client that answers by itself: every round lands anywhere.
    const { client: balanced } = await connectClient(run.fleet.balancer.origin, {
      era: '2026',
      capabilities: { elicitation: { form: {} } },
    });
    balanced.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content }));
    for (let i = 0; i < 6; i++) {
      const result = await balanced.callTool({ name: 'mcp__local__confirm', arguments: {} });
      expect(JSON.parse(String(text(result as Raw)))).toEqual({ action: 'accept', content });
    }
  });

  it('are refused, saying to start the call again, when that replica is gone', async () => {
    const [a, b] = await Promise.all(run.fleet.replicas.slice(0, 2).map((r) => clientOf(r.origin)));
    const first = await callRaw(a!, 'mcp__local__confirm');
    const key = askedKey(first);
    const victim = run.fleet.replicas[0]!;
    process.kill(victim.pid, 'SIGKILL');
    await victim.exited;
    const refused = await rpcError(
      callRaw(b!, 'mcp__local__confirm', {
        inputResponses: { [key]: { action: 'accept', content } },
        requestState: first.requestState,
      }),
    );
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toMatch(/without requestState/);
    // Started again, the call goes through on the replicas alive.
    const again = await callRaw(b!, 'mcp__local__confirm');
    const final = await callRaw(b!, 'mcp__local__confirm', {
      inputResponses: { [askedKey(again)]: { action: 'accept', content } },
      requestState: again.requestState,
    });
    expect(JSON.parse(String(text(final)))).toEqual({ action: 'accept', content });
  });
});
