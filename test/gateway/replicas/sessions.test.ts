import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
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
 * bound to the principal that opened it on every replica. The same for a 2024-11-05 HTTP+SSE
 * session: its messages are taken on any replica and answered on its stream.
 */
const unavailable = replicaTestsUnavailable();
if (unavailable) console.warn(`skipping the replica session tests: ${unavailable}`);

let fleet: ReplicaFleet;

beforeAll(async () => {
  if (unavailable) return;
  // The 2024-11-05 HTTP+SSE transport too, beside Streamable HTTP.
  fleet = await startReplicaFleet({ count: 3, gateway: { legacySse: true } });
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

describe.skipIf(unavailable !== undefined)('a 2024-11-05 SSE session across replicas', () => {
  it('takes its messages on any replica and answers them on its stream, for its principal only', async () => {
    const [a, b, c] = fleet.replicas.map((r) => r.origin) as [string, string, string];
    const opened = await fetch(`${a}/mcp/sse`, {
      headers: { authorization: `Bearer ${ALICE}`, accept: 'text/event-stream' },
    });
    expect(opened.status).toBe(200);
    const stream = new SseReader(opened.body);
    const endpoint = await stream.next();
    expect(endpoint?.event).toBe('endpoint');
    const path = endpoint!.data;
    const send = (origin: string, message: Record<string, unknown>, token = ALICE) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
    try {
      const init = await send(b, {
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      });
      expect(init.status).toBe(202);
      await init.text();
      expect((await stream.nextMessage()).message).toMatchObject({
        id: 1,
        result: { protocolVersion: '2024-11-05' },
      });
      expect((await send(c, { method: 'notifications/initialized' })).status).toBe(202);
      for (const [id, origin] of [
        [2, b],
        [3, c],
        [4, a],
      ] as const) {
        const accepted = await send(origin, echo(id, `sse via ${origin}`));
        expect(accepted.status).toBe(202);
        await accepted.text();
        const { message } = await stream.nextMessage();
        expect(message).toMatchObject({ id });
        expect(textOf(message)).toBe(`sse via ${origin}`);
      }
      // Bound to alice on every replica; an unknown session is unknown everywhere.
      for (const origin of [a, b, c]) {
        const stranger = await send(origin, echo(5, 'as bob'), BOB);
        expect(stranger.status).toBe(404);
        await stranger.text();
      }
      const unknown = await fetch(`${b}/mcp/messages?sessionId=00000000-0000-4000-8000-000000000000`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        body: JSON.stringify(echo(6, 'nobody')),
      });
      expect(unknown.status).toBe(404);
      await unknown.text();
    } finally {
      await stream.cancel();
    }
    // The stream was the session: once it closed, its messages are refused on every replica.
    await eventually(
      async () => {
        const late = await send(c, echo(7, 'too late'));
        await late.text();
        return late.status;
      },
      (status) => status === 404,
      { what: 'refused a message of the closed SSE session' },
    );
  }, 60_000);

  it('serves the SDK v1 SSE client through the balancer: its stream on one replica, its messages on all', async () => {
    const client = new ClientV1({ name: 'replica-sse', version: '1.0.0' });
    await client.connect(
      new SSEClientTransport(new URL(`${fleet.balancer.origin}/mcp/sse`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('mcp__kitchen__echo');
      for (let i = 0; i < 9; i++) {
        const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: `sse ${i}` } });
        expect((result.content as { text: string }[])[0]?.text).toBe(`sse ${i}`);
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});
