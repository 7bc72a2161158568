/**
 * The replicas the benchmark measures: one PostgreSQL server, one kitchen-sink upstream over
 * HTTP, `switchboard serve` processes on one database and secret key (started and replaced as
 * a run needs), and HAProxy balancers in front of any subset of them. Built from the same
 * pieces as the replica tests (test/helpers), so what is measured is what is tested.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKitchenSinkHttp } from '../../test/fixtures/kitchen-sink.js';
import { type Balancer, freePort, haproxyBinary, startHaproxy } from '../../test/helpers/haproxy.js';
import { type PostgresServer, startPostgresServer } from '../../test/helpers/postgres-server.js';
import { killSurvivors, processesWithEnv } from '../../test/helpers/processes.js';
import { type Replica, replicaDataDir, startReplica } from '../../test/helpers/replica-gateways.js';

export const TOKEN = 'bench-replicas-token';

export interface BenchFleet {
  readonly databaseUrl: string;
  /** The replicas started so far, the dead ones included (see `alive`). */
  readonly replicas: Replica[];
  /** The replicas not killed or stopped. */
  alive(): Replica[];
  /** Starts one more replica with the current config. */
  addReplica(): Promise<Replica>;
  /**
   * A round-robin HAProxy in front of `replicas`, on the next of the ports the replicas allow
   * in `Host` (see `configure`); stopped with the fleet.
   */
  balance(replicas: readonly Replica[]): Promise<Balancer>;
  /**
   * Rewrites the gateway section every replica started from now on reads; it allows the
   * balancers' ports in `Host` (they are picked up front, `balancers` of them).
   */
  configure(gateway: Record<string, unknown>): Promise<void>;
  /** Stops every replica (SIGTERM). */
  stopReplicas(): Promise<void>;
  close(): Promise<void>;
}

export async function startBenchFleet(options: { readonly balancers: number }): Promise<BenchFleet> {
  const binary = haproxyBinary();
  if (!binary)
    throw new Error('HAProxy is not installed (apt-get install -y haproxy): the benchmark needs it.');
  const root = await mkdtemp(join(tmpdir(), 'sb-bench-replicas-'));
  const marker = { name: 'SWITCHBOARD_REPLICA_BENCH', value: randomBytes(8).toString('hex') };
  const secretHex = randomBytes(32).toString('hex');
  const replicas: Replica[] = [];
  const stopped = new Set<Replica>();
  const balancers: Balancer[] = [];
  let pg: PostgresServer | undefined;
  let upstream: { url: string; close(): Promise<void> } | undefined;
  let databaseUrl = '';
  // Clients name the balancer in Host, which each replica checks: its port must be known first.
  const ports: number[] = [];
  for (let i = 0; i < options.balancers; i++) ports.push(await freePort());
  const configure = async (gateway: Record<string, unknown>) => {
    await writeFile(
      join(root, 'switchboard.json'),
      JSON.stringify({
        governance: { mode: 'full-auto' },
        servers: { kitchen: { url: upstream!.url } },
        gateway: {
          auth: {
            mode: 'bearer',
            tokens: [{ id: 'bench', sha256: createHash('sha256').update(TOKEN).digest('hex') }],
          },
          allowedHosts: ports.map((port) => `127.0.0.1:${port}`),
          ...gateway,
        },
      }),
    );
  };
  const fleet: BenchFleet = {
    get databaseUrl() {
      return databaseUrl;
    },
    replicas,
    alive: () => replicas.filter((r) => !stopped.has(r)),
    async addReplica() {
      const replica = await startReplica({
        projectDir: root,
        dataDir: replicaDataDir(root, replicas.length + 1),
        databaseUrl,
        secretHex,
        marker,
      });
      void replica.exited.then(() => stopped.add(replica));
      replicas.push(replica);
      return replica;
    },
    async balance(members) {
      const port = ports[balancers.length];
      if (port === undefined) throw new Error(`only ${ports.length} balancers were planned`);
      const balancer = await startHaproxy(
        binary,
        members.map((r) => r.port),
        { port },
      );
      balancers.push(balancer);
      return balancer;
    },
    configure,
    async stopReplicas() {
      await Promise.all(replicas.map((r) => r.stop()));
    },
    async close() {
      await Promise.all(balancers.map((b) => b.stop()));
      await Promise.all(replicas.map((r) => r.stop()));
      killSurvivors(processesWithEnv(marker.name, marker.value));
      await upstream?.close();
      await pg?.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    upstream = await startKitchenSinkHttp({ era: 'both' });
    pg = await startPostgresServer();
    databaseUrl = await pg.createDatabase();
    await configure({});
    return fleet;
  } catch (error) {
    await fleet.close();
    throw error;
  }
}
