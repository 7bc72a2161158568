import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real load balancer for tests: Debian's HAProxy on 127.0.0.1, round-robin over the given
 * backends, no stickiness of any kind, health checks every 100 ms (a backend refusing
 * connections is out after one failed check) and a retry on another backend when a connection
 * fails, as a production setup has. `stop()` ends the process and deletes its directory.
 */
export interface Balancer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  stop(): Promise<void>;
}

/** The path of `haproxy`, or undefined when it is not installed (the tests that need it skip). */
export function haproxyBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  try {
    return execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const READY_TIMEOUT_MS = 10_000;
const START_ATTEMPTS = 3;

/** A port free on 127.0.0.1 just now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port from 127.0.0.1:0');
  return address.port;
}

function config(port: number, backends: readonly number[]): string {
  const servers = backends.map((p, i) => `  server r${i + 1} 127.0.0.1:${p} check inter 100ms fall 1 rise 2`);
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  timeout http-keep-alive 60s',
    '  retries 2',
    '  option redispatch 1',
    'frontend replicas',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gateways',
    'backend gateways',
    '  balance roundrobin',
    ...servers,
    '',
  ].join('\n');
}

/** Resolves once something accepts connections on `port`; rejects when `child` exits first. */
async function accepting(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`haproxy exited (${child.exitCode})`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`haproxy did not accept connections within ${READY_TIMEOUT_MS} ms`);
}

/**
 * Starts HAProxy in front of `backends` (ports on 127.0.0.1), on `port` when given (the
 * gateways behind it must know the balancer's address, for their allowed hosts, before it
 * starts; see `freePort`), else on a free one.
 */
export async function startHaproxy(
  binary: string,
  backends: readonly number[],
  options: { readonly port?: number } = {},
): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-haproxy-'));
  let child: ChildProcess | undefined;
  let stderr = '';
  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);
  const kill = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const stop = async () => {
    await kill();
    process.removeListener('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config(port, backends));
    // -db: stay in the foreground, no daemon; the test owns the process.
    child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    try {
      await accepting(port, child);
      return { origin: `http://127.0.0.1:${port}`, stop };
    } catch (error) {
      const exitedEarly = child.exitCode !== null;
      await kill();
      if (!exitedEarly || attempt >= START_ATTEMPTS || options.port !== undefined) {
        await stop();
        throw new Error(`${(error as Error).message}; its stderr ends:\n${stderr}`);
      }
    }
  }
}
