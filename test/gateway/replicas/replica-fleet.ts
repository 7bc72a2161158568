import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export async function startReplicaFleet(options: {
  readonly count: number;
  readonly gateway?: Record<string, unknown>;
}): Promise<ReplicaFleet> {
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
        governance: { mode: 'full-auto' },
        servers: { kitchen: { url: upstream.url } },
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
