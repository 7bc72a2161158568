import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { csrfKey } from '../../src/gateway/api/csrf.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { relayStateKey } from '../../src/gateway/mcp/relay-state.js';
import { forwardingKey } from '../../src/gateway/replicas/forwarded-header.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { SseReader } from './sse-events.js';

/**
 * Inbox front-ends across two in-process replicas on one PostgreSQL database: a person can
 * answer only where a front-end (a dashboard's stream) is attached, and a replica with none
 * still lets its approvals wait while another has one, and the item is answered there. With
 * none anywhere, an approval is declined at once, as on one gateway.
 */
const TOKEN = 'replica-front-ends-token-0123456789';
const silent = { access: () => undefined, warn: () => undefined, error: () => undefined };
let server: PostgresServer;
let db: pg.Client;
const dirs: string[] = [];
const hosts: Host[] = [];
const gateways: HttpGateway[] = [];
const clients: Client[] = [];
let a: HttpGateway;
let b: HttpGateway;

async function replica(database: string, key: Uint8Array): Promise<HttpGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-front-ends-'));
  dirs.push(dataDir);
  const host = await Host.create({
    dataDir,
    database,
    // Every call asks a person.
    governance: { mode: 'read-only' },
    servers: [normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] })],
  });
  hosts.push(host);
  await catalogHas(host, 'mcp__kitchen__echo');
  const settings = resolveGateway(
    parseGateway(
      {
        port: 0,
        consent: 'off',
        auth: { mode: 'bearer', tokens: [{ id: 'ops', sha256: hashToken(TOKEN) }] },
      },
      'test.json',
    ),
  );
  const gateway = await startHttpGateway(host, settings, {
    log: silent,
    relayStateKey: relayStateKey(key),
    csrfKey: csrfKey(key),
    replicas: { key: forwardingKey(key) },
  });
  gateways.push(gateway);
  return gateway;
}

beforeAll(async () => {
  server = await startPostgresServer();
  const database = await server.createDatabase();
  const key = randomBytes(32);
  a = await replica(database, key);
  b = await replica(database, key);
  db = new pg.Client({ connectionString: database });
  await db.connect();
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const g of gateways) await g.close();
  for (const h of hosts) await h.close();
  await db?.end().catch(() => undefined);
  await server?.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const origin = (g: HttpGateway) => new URL(g.url).origin;
const auth = { authorization: `Bearer ${TOKEN}` };

/** Until `of`'s heartbeat says `count` front-ends, and `reader` has beaten since: it knows. */
async function known(of: HttpGateway, count: number, reader: HttpGateway): Promise<void> {
  const row = async (g: HttpGateway) =>
    (
      await db.query<{ front_ends: number; seen_at: string }>(
        'select front_ends, seen_at from replicas where url = $1',
        [origin(g)],
      )
    ).rows[0];
  await eventually(row.bind(null, of), (r) => r?.front_ends === count, { what: `seen ${count} front-ends` });
  const since = new Date().toISOString();
  await eventually(row.bind(null, reader), (r) => r !== undefined && r.seen_at > since, {
    what: 'seen the other replica beat since',
  });
}

async function callEcho(g: HttpGateway, text: string) {
  const client = new Client(
    { name: 'front-ends', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(g.url), { requestInit: { headers: auth } }));
  clients.push(client);
  return client.callTool({ name: 'mcp__kitchen__echo', arguments: { text } }, { timeout: 30_000 });
}

const textOf = (result: { content?: unknown }) => ((result.content ?? []) as { text?: string }[])[0]?.text;

describe('Inbox front-ends across replicas', () => {
  it('decline at once with none attached anywhere', async () => {
    const declined = await callEcho(a, 'nobody watches');
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/no approver is attached/);
  });

  it("let a replica's approvals wait while a dashboard watches another, which answers them", async () => {
    const stream = await fetch(`${origin(b)}/api/stream`, {
      headers: { ...auth, accept: 'text/event-stream' },
    });
    const reader = new SseReader(stream.body);
    try {
      await known(b, 1, a);
      const call = callEcho(a, 'answered on B');
      const item = await eventually(
        async () =>
          (
            (await (await fetch(`${origin(b)}/api/inbox`, { headers: auth })).json()) as {
              items: ApiInboxItem[];
            }
          ).items[0],
        (found) => found !== undefined,
        { what: 'listed the approval on B' },
      );
      expect(item).toMatchObject({ kind: 'approval', tool: 'echo', replica: origin(a) });
      const answered = await fetch(`${origin(b)}/api/inbox/${item!.id}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'accept' }),
      });
      expect(answered.status).toBe(200);
      expect(textOf(await call)).toBe('answered on B');
    } finally {
      await reader.cancel();
    }
    // The dashboard left: with nobody attached anywhere, A declines at once again.
    await known(b, 0, a);
    expect((await callEcho(a, 'nobody again')).isError).toBe(true);
  }, 60_000);
});
