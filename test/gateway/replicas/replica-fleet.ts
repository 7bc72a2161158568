import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll } from 'vitest';
import { type KitchenStats, startKitchenSinkHttp } from '../../fixtures/kitchen-sink.js';
import { type Balancer, freePort, haproxyBinary, startHaproxy } from '../../helpers/haproxy.js';
import { type PostgresServer, startPostgresServer } from '../../helpers/postgres-server.js';
import { killSurvivors, processesWithEnv } from '../../helpers/processes.js';
import { type Replica, replicaDataDir, startReplica } from '../../helpers/replica-gateways.js';

/**
 * What the replica tests run on: one PostgreSQL server, one kitchen-sink upstream over HTTP
 * (every replica reaches the same one, as servers shared behind HTTP are), `count` real
 * `switchboard serve` processes on one database and secret key, with two bearer tokens
 * (alice, bob), and HAProxy round-robin in front. `close()` stops and deletes all of it, and
 * kills whatever any replica left behind.
 */
export interface ReplicaFleet {
  readonly replicas: Replica[];
  /** What the upstream every replica reaches has received. */
  readonly upstream: KitchenStats;
  readonly balancer: Balancer;
  readonly databaseUrl: string;
  readonly pg: PostgresServer;
  close(): Promise<void>;
}

export const ALICE = 'alice-secret-token';
export const BOB = 'bob-secret-token';

/** Why the replica tests skip here, or undefined when they can run. */
export function replicaTestsUnavailable(): string | undefined {
  if (haproxyBinary() !== undefined) return undefined;
  const why =
    'HAProxy is not installed (apt-get install -y haproxy): the replica tests need a real round-robin balancer';
  // CI installs it (.ci/run) and must not pass by skipping.
  if (process.env.SWITCHBOARD_REQUIRE_HAPROXY === '1') throw new Error(why);
  return why;
}

const sha = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a fleet runs: how many replicas, and their config beside the defaults. */
export interface FleetOptions {
  readonly count: number;
  readonly gateway?: Record<string, unknown>;
  /** The governance section (default: full-auto, nobody is asked). */
  readonly governance?: Record<string, unknown>;
  /** Servers beside the shared kitchen sink (each replica runs its own stdio ones). */
  readonly servers?: Record<string, unknown>;
}

/**
 * The fleet of one test file: started before its tests (unless the replica tests cannot run
 * here: then `skip` is true, and why is said once), closed after them, with every client
 * `connectClient` made. `ready` runs once it is up.
 */
export function fleetForFile(
  what: string,
  options: FleetOptions,
  ready?: (fleet: ReplicaFleet) => Promise<void>,
): { readonly skip: boolean; readonly fleet: ReplicaFleet } {
  const unavailable = replicaTestsUnavailable();
  if (unavailable) console.warn(`skipping the replica ${what} tests: ${unavailable}`);
  let fleet: ReplicaFleet | undefined;
  beforeAll(async () => {
    if (unavailable) return;
    fleet = await startReplicaFleet(options);
    await ready?.(fleet);
  }, 240_000);
  afterAll(async () => {
    await clients.closeAll();
    await fleet?.close();
  }, 60_000);
  return {
    skip: unavailable !== undefined,
    get fleet() {
      if (!fleet) throw new Error('the fleet did not start');
      return fleet;
    },
  };
}

export async function startReplicaFleet(options: FleetOptions): Promise<ReplicaFleet> {
  const binary = haproxyBinary();
  if (!binary) throw new Error(replicaTestsUnavailable());
  const root = await mkdtemp(join(tmpdir(), 'sb-replicas-'));
  const marker = { name: 'SWITCHBOARD_REPLICA_TEST', value: randomBytes(8).toString('hex') };
  const started: {
    replicas: Replica[];
    balancer?: Balancer;
    pg?: PostgresServer;
    upstream?: { close(): Promise<void> };
  } = { replicas: [] };
  const close = async () => {
    await started.balancer?.stop();
    await Promise.all(started.replicas.map((r) => r.stop()));
    killSurvivors(processesWithEnv(marker.name, marker.value));
    await started.upstream?.close();
    await started.pg?.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const upstream = await startKitchenSinkHttp({ era: 'both' });
    started.upstream = upstream;
    const pg = await startPostgresServer();
    started.pg = pg;
    const databaseUrl = await pg.createDatabase();
    const balancerPort = await freePort();
    await writeFile(
      join(root, 'switchboard.json'),
      JSON.stringify({
        governance: options.governance ?? { mode: 'full-auto' },
        servers: { kitchen: { url: upstream.url }, ...options.servers },
        gateway: {
          auth: {
            mode: 'bearer',
            tokens: [
              { id: 'alice', sha256: sha(ALICE) },
              { id: 'bob', sha256: sha(BOB) },
            ],
          },
          // Clients name the balancer in Host; each replica checks it (DNS-rebinding guard).
          allowedHosts: [`127.0.0.1:${balancerPort}`],
          ...options.gateway,
        },
      }),
    );
    const secretHex = randomBytes(32).toString('hex');
    // One at a time: the first migrates the database, and two cores start three Node processes
    // no faster together.
    for (let n = 1; n <= options.count; n++) {
      started.replicas.push(
        await startReplica({
          projectDir: root,
          dataDir: replicaDataDir(root, n),
          databaseUrl,
          secretHex,
          marker,
        }),
      );
    }
    const balancer = await startHaproxy(
      binary,
      started.replicas.map((r) => r.port),
      { port: balancerPort },
    );
    started.balancer = balancer;
    return { replicas: started.replicas, upstream: upstream.stats, balancer, databaseUrl, pg, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** How `connectClient` speaks: its era, what it declares, who it is. */
export interface ClientOptions {
  /** `2026`: pinned to 2026-07-28 (stateless); default: a 2025 session. */
  readonly era?: '2025' | '2026';
  readonly capabilities?: Record<string, unknown>;
  /** Hand `input_required` rounds back to the caller instead of answering them (2026 only). */
  readonly rounds?: 'caller';
  readonly token?: string;
  readonly name?: string;
}

/**
 * An SDK client of `origin` (one replica, or the balancer) as alice unless told, connected;
 * it is closed by `clients.closeAll()`.
 */
export async function connectClient(
  origin: string,
  options: ClientOptions = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: options.name ?? `replica-${options.era ?? '2025'}`, version: '1.0.0' },
    {
      ...(options.capabilities && { capabilities: options.capabilities }),
      ...(options.era === '2026' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
      ...(options.rounds === 'caller' && { inputRequired: { autoFulfill: false } }),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${options.token ?? ALICE}` } },
  });
  await client.connect(transport);
  clients.add(client);
  return { client, transport };
}

/** The clients `connectClient` made, for a test file's `afterAll`. */
export const clients = {
  add(client: Client): void {
    open.add(client);
  },
  async closeAll(): Promise<void> {
    await Promise.all([...open].map((c) => c.close().catch(() => undefined)));
    open.clear();
  },
};
const open = new Set<Client>();
