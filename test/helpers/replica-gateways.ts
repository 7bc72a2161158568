import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Real `switchboard serve` processes as replicas of one gateway: each its own data dir (as on
 * its own machine), all on one PostgreSQL database and one secret key, on 127.0.0.1 port 0.
 * Every process carries `marker` in its environment, so a test's cleanup can find whatever
 * one of them left behind.
 */
export interface Replica {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** What it wrote on stderr, the last 8 KiB. */
  stderr(): string;
  /** SIGTERM (a clean stop), then SIGKILL after a bound. */
  stop(): Promise<void>;
}

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export async function startReplica(options: {
  readonly projectDir: string;
  readonly dataDir: string;
  readonly databaseUrl: string;
  readonly secretHex: string;
  readonly marker: { readonly name: string; readonly value: string };
}): Promise<Replica> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      main,
      '--config',
      options.projectDir,
      '--data-dir',
      options.dataDir,
      'serve',
      '--port',
      '0',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: options.projectDir,
        SWITCHBOARD_DATABASE_URL: options.databaseUrl,
        SWITCHBOARD_SECRET_KEY: options.secretHex,
        [options.marker.name]: options.marker.value,
      },
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    exited.then(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), START_TIMEOUT_MS).unref()),
  ]);
  const match = first === undefined ? null : /^listening (http:\/\/127\.0\.0\.1:(\d+))\/mcp$/.exec(first);
  if (!match) {
    child.kill('SIGKILL');
    throw new Error(`switchboard serve did not start (${first ?? 'no line'}); its stderr ends:\n${stderr}`);
  }
  return {
    origin: match[1]!,
    port: Number(match[2]),
    pid: child.pid!,
    exited,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The path of a replica's data dir under `root`. */
export function replicaDataDir(root: string, n: number): string {
  return join(root, `replica-${n}`);
}
