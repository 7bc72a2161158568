import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/wait.js';
import { SseReader } from '../sse-events.js';
import { answerOf, callBody, headers, initializeBody, post } from './raw-session.js';
import {
  ALICE,
  BOB,
  type ReplicaFleet,
  replicaTestsUnavailable,
  startReplicaFleet,
} from './replica-fleet.js';

/**
 * Three `switchboard serve` replicas on one PostgreSQL database behind HAProxy (round-robin,
 * no stickiness): any replica serves any request of a 2025 session. The session's requests are
 * relayed to the replica that opened it, with the forwarding proof, and the session stays
 * bound to the principal that opened it on every replica.
 */
const unavailable = replicaTestsUnavailable();
if (unavailable) console.warn(`skipping the replica session tests: ${unavailable}`);

let fleet: ReplicaFleet;

beforeAll(async () => {
  if (unavailable) return;
  fleet = await startReplicaFleet({ count: 3 });
}, 180_000);

afterAll(async () => {
  await fleet?.close();
}, 60_000);

const echo = (id: number, text: string) => callBody(id, 'mcp__kitchen__echo', { text });
const textOf = (message: Record<string, unknown>) =>
  ((message.result as { content?: { text?: string }[] } | undefined)?.content ?? [])[0]?.text;

describe.skipIf(unavailable !== undefined)('a 2025 session across replicas', () => {
  it('is opened on A, called on B and C, streamed on A, resumed on C and deleted on B', async () => {
    const [a, b, c] = fleet.replicas.map((r) => r.origin) as [string, string, string];
    const opened = await post(a, ALICE, initializeBody());
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    expect((await answerOf(opened)).result).toMatchObject({ protocolVersion: '2025-11-25' });
    const initialized = await post(
      b,
      ALICE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      session,
    );
    expect(initialized.status).toBe(202);

    expect(textOf(await answerOf(await post(b, ALICE, echo(1, 'on B'), session)))).toBe('on B');
    expect(textOf(await answerOf(await post(c, ALICE, echo(2, 'on C'), session)))).toBe('on C');

    // Bound to alice on every replica: bob's token with her session id is an unknown session.
    for (const origin of [a, b, c]) {
      const refused = await post(origin, BOB, echo(3, 'as bob'), session);
      expect(refused.status).toBe(404);
      await refused.text();
    }

    // The GET stream, on the replica that holds the session.
    const stream = await fetch(`${a}/mcp`, { headers: headers(ALICE, session) });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await new SseReader(stream.body).cancel();

    // A slow call on B opens its stream (a priming event with an id) before it answers; the
    // client drops it and resumes on C from that event.
    const slow = await post(b, ALICE, callBody(4, 'mcp__kitchen__slow', { ms: 600 }), session);
    expect(slow.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = new SseReader(slow.body);
    const priming = await reader.next();
    expect(priming?.id).toBeTruthy();
    await reader.cancel();
    // As a client does, it comes back until the stream holds the answer (a stream resumed
    // while the call still runs ends without it: the client resumes again after `retry`).
    const replayed = await eventually(
      async () => {
        const resumed = await fetch(`${c}/mcp`, {
          headers: headers(ALICE, session, { 'last-event-id': priming!.id! }),
        });
        expect(resumed.status).toBe(200);
        const events = new SseReader(resumed.body);
        try {
          return await events.nextMessage(20_000);
        } catch {
          return undefined;
        } finally {
          await events.cancel();
        }
      },
      (found) => found !== undefined,
      { what: 'resumed the slow call with its answer', timeoutMs: 20_000, everyMs: 100 },
    );
    expect(replayed?.message).toMatchObject({ id: 4 });
    expect(textOf(replayed!.message)).toBe('slow done');

    const deleted = await fetch(`${b}/mcp`, { method: 'DELETE', headers: headers(ALICE, session) });
    expect(deleted.status).toBe(200);
    await deleted.text();
    for (const origin of [a, c]) {
      const gone = await post(origin, ALICE, echo(5, 'after delete'), session);
      expect(gone.status).toBe(404);
      await gone.text();
    }
  }, 60_000);

  it('serves the SDK client through the round-robin balancer, every request on any replica', async () => {
    const client = new Client({ name: 'replica-sdk', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${fleet.balancer.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion).toMatch(/^2025-/);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('mcp__kitchen__echo');
      for (let i = 0; i < 12; i++) {
        const result = await client.callTool({
          name: 'mcp__kitchen__echo',
          arguments: { text: `call ${i}` },
        });
        expect((result.content as { text: string }[])[0]?.text).toBe(`call ${i}`);
      }
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  }, 60_000);
});
