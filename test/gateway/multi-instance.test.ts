import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { relayStateKey } from '../../src/gateway/mcp/relay-state.js';
import { CredentialCipher } from '../../src/host/credentials/credential-cipher.js';
import { StoreCredentialStore } from '../../src/host/credentials/store-credential-store.js';
import { Host } from '../../src/host/host.js';
import { openStore } from '../../src/storage/open-store.js';
import { startUpstreamHttp } from '../fixtures/conformance-upstream/http.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';
import { catalogHas } from '../helpers/wait.js';
import { callRaw, modernClient, quietLog, type Raw } from './modern-client.js';

/**
 * The gateway past one machine: two gateway instances (each its own host and data dir, as on
 * two machines) on one PostgreSQL database behind an imaginary load balancer. A multi-round
 * 2026-07-28 call may land on either instance each round, the audit trail is one, and OAuth
 * credentials live in the shared store (encrypted), not in either machine's files.
 */
let pg: PostgresServer;
let upstream: Awaited<ReturnType<typeof startUpstreamHttp>>;
const dirs: string[] = [];
const hosts: Host[] = [];
const gateways: HttpGateway[] = [];
const clients: Client[] = [];

async function instance(database: string, key: Uint8Array): Promise<{ host: Host; gateway: HttpGateway }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-multi-'));
  dirs.push(dataDir);
  const host = await Host.create({
    dataDir,
    database,
    governance: { mode: 'full-auto' },
    connection: { env: { ...process.env, SWITCHBOARD_SECRET_KEY: Buffer.from(key).toString('hex') } },
    servers: [
      // One remote server both machines reach: its own round state is its own, like ours.
      normalizeServerEntry({ name: 'up', url: upstream.url }),
    ],
  });
  hosts.push(host);
  await catalogHas(host, 'mcp__up__test_input_required_result_multi_round');
  const gateway = await startHttpGateway(
    host,
    resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off' }),
    { log: quietLog, relayStateKey: relayStateKey(key) },
  );
  gateways.push(gateway);
  return { host, gateway };
}

async function client(url: string): Promise<Client> {
  const c = await modernClient(url, { elicitation: { form: {} } }, 'multi');
  clients.push(c);
  return c;
}

const round = (c: Client, extra: Raw = {}) => callRaw(c, 'test_input_required_result_multi_round', extra);

beforeAll(async () => {
  upstream = await startUpstreamHttp({ port: 0 });
  pg = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all(hosts.map((h) => h.close()));
  await pg?.stop();
  await upstream?.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('two gateways on one PostgreSQL database', () => {
  it('serves each round of a multi-round call on either instance, and audits both in one trail', async () => {
    const database = await pg.createDatabase();
    const key = randomBytes(32);
    const a = await instance(database, key);
    const b = await instance(database, key);
    const onA = await client(a.gateway.url);
    const onB = await client(b.gateway.url);
    const r1 = await round(onA);
    const r2 = await round(onB, {
      inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } } },
      requestState: r1.requestState,
    });
    const r3 = await round(onA, {
      inputResponses: { step2: { action: 'accept', content: { color: 'teal' } } },
      requestState: r2.requestState,
    });
    expect((r3.content as { text: string }[])[0]?.text).toBe('Ada likes teal');
    // One trail: instance B sees the rounds instance A served, and the other way round. A call's
    // record is written just after its answer: A's reading of the trail writes what it holds.
    await a.host.audit({ server: 'up' });
    const seen = (await b.host.audit({ server: 'up' })).entries.filter((e) => e.action === 'tool_call');
    expect(seen.length).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('refuses a round sealed by an instance with another key', async () => {
    const database = await pg.createDatabase();
    const a = await instance(database, randomBytes(32));
    const b = await instance(database, randomBytes(32));
    const r1 = await round(await client(a.gateway.url));
    const refused = await round(await client(b.gateway.url), {
      inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } } },
      requestState: r1.requestState,
    }).then(
      () => 'accepted',
      (error: { code?: number }) => error.code,
    );
    expect(refused).toBe(-32602);
  }, 60_000);

  it('keeps OAuth credentials in the shared store, encrypted, where every instance finds them', async () => {
    const database = await pg.createDatabase();
    const key = randomBytes(32);
    const a = await instance(database, key);
    const b = await instance(database, key);
    // A login on any machine writes here: the store on the shared database, with the shared key.
    const store = await openStore(database);
    try {
      const writer = new StoreCredentialStore({
        store,
        cipher: new CredentialCipher({ bytes: key, source: 'test' }),
      });
      await writer.save('up', 'https://issuer.example', {
        tokens: { access_token: 'shared-token', token_type: 'Bearer', obtainedAt: Date.now() },
      });
      const row = JSON.stringify(await store.tokens.get('up', 'https://issuer.example'));
      expect(row).not.toContain('shared-token');
      // Instance B forgets them for everyone; instance A then has none left.
      expect(await b.host.logout('up')).toBe(1);
      expect(await a.host.logout('up')).toBe(0);
    } finally {
      await store.close();
    }
  }, 60_000);
});
