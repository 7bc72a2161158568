import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';
import { ALICE, type ReplicaFleet, replicaTestsUnavailable, startReplicaFleet } from './replica-fleet.js';

/**
 * A replica killed with SIGKILL under load, behind HAProxy: the 2026-07-28 calls lose nothing
 * but the ones that replica had in flight, and the 2025 session it held goes on, taken over by
 * another replica from the store, under the same session id. Each caller sees at most one
 * failed call, the one that was in flight when its replica died.
 */
const unavailable = replicaTestsUnavailable();
if (unavailable) console.warn(`skipping the replica failover tests: ${unavailable}`);

let fleet: ReplicaFleet;
let db: pg.Client;
const clients: Client[] = [];

beforeAll(async () => {
  if (unavailable) return;
  fleet = await startReplicaFleet({ count: 3 });
  db = new pg.Client({ connectionString: fleet.databaseUrl });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await db?.end().catch(() => undefined);
  await fleet?.close();
}, 60_000);

async function connect(
  era: 'legacy' | 'modern',
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: `failover-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${fleet.balancer.origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** One caller calling in a loop until told to stop (bounded in count), its outcomes kept. */
class Caller {
  readonly outcomes: { readonly ok: boolean; readonly at: number; readonly error?: string }[] = [];
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly client: Client,
    readonly name: string,
  ) {
    this.done = this.run();
  }

  okAfter(at: number): number {
    return this.outcomes.filter((o) => o.ok && o.at > at).length;
  }

  failures(): number {
    return this.outcomes.filter((o) => !o.ok).length;
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }

  private async run(): Promise<void> {
    for (let i = 0; i < 5_000 && !this.stopped; i++) {
      const text = `${this.name} ${i}`;
      try {
        const result = await this.client.callTool(
          { name: 'mcp__kitchen__echo', arguments: { text } },
          { timeout: 15_000 },
        );
        const echoed = (result.content as { text?: string }[])[0]?.text;
        this.outcomes.push({
          ok: echoed === text,
          at: Date.now(),
          ...(echoed !== text && { error: `echoed ${echoed}` }),
        });
      } catch (error) {
        this.outcomes.push({ ok: false, at: Date.now(), error: String(error) });
      }
    }
  }
}

describe.skipIf(unavailable !== undefined)('a replica killed under load', () => {
  it('loses no 2026-07-28 call on the others, and its 2025 session goes on elsewhere', async () => {
    const legacy = await connect('legacy');
    const sessionId = legacy.transport.sessionId!;
    expect(sessionId).toBeTruthy();
    const owner = await db.query<{ url: string }>(
      'select r.url from mcp_sessions s join replicas r on r.id = s.owner where s.id = $1',
      [sessionId],
    );
    const victim = fleet.replicas.find((r) => r.origin === owner.rows[0]?.url);
    expect(victim, 'the replica that holds the session').toBeDefined();

    const modern = await Promise.all([connect('modern'), connect('modern'), connect('modern')]);
    const callers = [
      new Caller(legacy.client, 'session'),
      ...modern.map(({ client }, n) => new Caller(client, `modern-${n}`)),
    ];
    try {
      await eventually(
        () => callers.map((c) => c.okAfter(0)),
        (counts) => counts.every((n) => n >= 5),
        { what: 'every caller had five calls answered before the kill', timeoutMs: 30_000 },
      );
      process.kill(victim!.pid, 'SIGKILL');
      await victim!.exited;
      const killedAt = Date.now();
      expect(running(victim!.pid)).toBe(false);
      await eventually(
        () => callers.map((c) => c.okAfter(killedAt)),
        (counts) => counts.every((n) => n >= 10),
        { what: 'every caller had ten calls answered after the kill', timeoutMs: 45_000, everyMs: 50 },
      );
      const session = callers[0]!;
      const resumedAfter = session.outcomes.find((o) => o.ok && o.at > killedAt)!.at - killedAt;
      const failed = callers.map((c) => `${c.name} ${c.failures()}`).join(', ');
      console.log(
        `the 2025 session went on ${resumedAfter} ms after its replica died; failed calls: ${failed}`,
      );
    } finally {
      await Promise.all(callers.map((c) => c.stop()));
    }
    // At most the call in flight when the replica died failed, for each caller.
    for (const caller of callers) {
      expect(
        caller.failures(),
        `${caller.name}: ${JSON.stringify(caller.outcomes.filter((o) => !o.ok))}`,
      ).toBeLessThanOrEqual(1);
    }
    // The same session, now held by a replica that is alive.
    expect(legacy.transport.sessionId).toBe(sessionId);
    const now = await db.query<{ url: string }>(
      'select r.url from mcp_sessions s join replicas r on r.id = s.owner where s.id = $1',
      [sessionId],
    );
    const heir = fleet.replicas.find((r) => r.origin === now.rows[0]?.url);
    expect(heir).toBeDefined();
    expect(heir).not.toBe(victim);
    const list = await legacy.client.listTools();
    expect(list.tools.map((t) => t.name)).toContain('mcp__kitchen__echo');
  }, 150_000);
});
