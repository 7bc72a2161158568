import { ProtocolError } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { REPLICA_LOST_CODE } from '../../../src/gateway/mcp/placed-sessions.js';
import { eventually } from '../../helpers/wait.js';
import { SseReader } from '../sse-events.js';
import { answerOf, callBody, headers, openSession, post } from './raw-session.js';
import { ALICE, connectClient, fleetForFile } from './replica-fleet.js';

/**
 * Resumable streams outlive the replica that served them: every event of a 2025 session's
 * streams is kept in the store before its client gets it, so after a kill -9 of the owner the
 * replica that takes the session over resumes them (`GET` with `Last-Event-ID`). An answer the
 * dead owner had produced is replayed, not lost; a call it was still serving gets one
 * retryable error (-32011) on the resumed stream, and the session goes on.
 */
let db: pg.Client;
const run = fleetForFile('resume', { count: 3 }, async (fleet) => {
  db = new pg.Client({ connectionString: fleet.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end().catch(() => undefined);
});

const killed = new Set<string>();

/** Kills the replica at `origin` with SIGKILL and returns when it was seen dead. */
async function kill(origin: string): Promise<number> {
  const victim = run.fleet.replicas.find((r) => r.origin === origin)!;
  killed.add(origin);
  process.kill(victim.pid, 'SIGKILL');
  await victim.exited;
  return Date.now();
}

const ownerOf = async (session: string) =>
  (
    await db.query<{ url: string }>(
      'select r.url from mcp_sessions s join replicas r on r.id = s.owner where s.id = $1',
      [session],
    )
  ).rows[0]?.url;

describe.skipIf(run.skip)('resumable streams across replicas', () => {
  it('replays an answer the owner produced before it was killed, on the replica that took over', async () => {
    const [a, b, c] = run.fleet.replicas.map((r) => r.origin) as [string, string, string];
    const session = await openSession(a, ALICE);
    expect(await ownerOf(session)).toBe(a);
    // A call that outlasts the quick-answer window gets a stream; its client drops it after
    // the priming event, as a client whose connection broke.
    const opened = await post(a, ALICE, callBody(7, 'mcp__kitchen__slow', { ms: 1_000 }), session);
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = new SseReader(opened.body);
    const priming = await stream.next(20_000);
    expect(priming?.id).toBeTruthy();
    await stream.cancel();
    const token = priming!.id!.slice(0, priming!.id!.lastIndexOf('.'));
    // The owner produced the answer (it is in the store) and nobody has read it yet.
    await eventually(
      async () =>
        (
          await db.query<{ n: string }>(
            `select count(*) as n from mcp_stream_events where token = $1 and message like '%"result"%'`,
            [token],
          )
        ).rows[0]?.n,
      (n) => n === '1',
      { what: 'stored the answer of the dropped stream', timeoutMs: 30_000 },
    );
    const killedAt = await kill(a);

    const resumed = await fetch(`${b}/mcp`, {
      headers: { ...headers(ALICE, session), 'last-event-id': priming!.id! },
    });
    expect(resumed.status).toBe(200);
    const { message } = await new SseReader(resumed.body).nextMessage(20_000);
    const after = Date.now() - killedAt;
    console.log(`an answer of a killed replica was replayed ${after} ms after the kill`);
    expect(message).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'slow done' }] } });
    expect(after).toBeLessThan(15_000);
    // B holds the session now; C relays to it, and the same answer is replayed once more.
    expect(await ownerOf(session)).toBe(b);
    const again = await fetch(`${c}/mcp`, {
      headers: { ...headers(ALICE, session), 'last-event-id': priming!.id! },
    });
    expect((await new SseReader(again.body).nextMessage(20_000)).message).toMatchObject({ id: 7 });
    // A resume from an event nobody issued is refused; the session goes on.
    const bogus = await fetch(`${c}/mcp`, {
      headers: { ...headers(ALICE, session), 'last-event-id': `${token}x.1` },
    });
    expect(bogus.status).toBeGreaterThanOrEqual(400);
    await bogus.text();
    const echoed = await answerOf(
      await post(c, ALICE, callBody(8, 'mcp__kitchen__echo', { text: 'still here' }), session),
    );
    expect(echoed).toMatchObject({ id: 8, result: { content: [{ text: 'still here' }] } });
  });

  it('gives a call the killed owner was serving one retryable error, through the balancer, and goes on', async () => {
    const { client, transport } = await connectClient(run.fleet.balancer.origin);
    const session = transport.sessionId!;
    const owner = await ownerOf(session);
    expect(run.fleet.replicas.some((r) => r.origin === owner && !killed.has(owner))).toBe(true);

    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const call = client
      .callTool(
        { name: 'mcp__kitchen__slow', arguments: { ms: 60_000 } },
        {
          timeout: 90_000,
          onprogress: () => started(),
        },
      )
      .then(
        () => ({ failedAt: undefined, error: undefined }),
        (error: unknown) => ({ failedAt: Date.now(), error }),
      );
    // The call runs on the owner (its "started" progress came through): then the owner dies.
    await running;
    const killedAt = await kill(owner!);
    const outcome = await call;
    expect(outcome.error).toBeInstanceOf(ProtocolError);
    expect((outcome.error as ProtocolError).code).toBe(REPLICA_LOST_CODE);
    const after = outcome.failedAt! - killedAt;
    console.log(`a call the killed replica was serving failed (retryable) ${after} ms after the kill`);
    expect(after).toBeLessThan(15_000);
    // The same session, on a replica alive.
    const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'goes on' } });
    expect((result.content as { text?: string }[])[0]?.text).toBe('goes on');
    expect(transport.sessionId).toBe(session);
    expect(await ownerOf(session)).not.toBe(owner);
  });
});
