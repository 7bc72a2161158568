import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { ConnectionOptions, LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { normalizeServerEntry, type RawServerEntry } from '../../../src/core/server-config.js';
import { sandboxDestinations } from '../../../src/policy/sandbox-destination.js';
import { sandboxProbeBin } from '../../fixtures/paths.js';
import { killSurvivors, processesWithEnv } from '../../helpers/processes.js';

/**
 * The sandbox tests' common ground: a fake home with keys and credentials in it, a data
 * directory whose `sandbox/` holds the state directories, the witness server
 * (`sandbox-probe.ts`) connected under a profile, and listeners on 127.0.0.1 to aim at.
 */

/** What the witness reports (see test/fixtures/sandbox-probe.ts). */
export interface Report {
  read: { path: string; ok: boolean; code?: string }[];
  write: { path: string; ok: boolean; code?: string }[];
  connect: { host: string; port: number; ok: boolean; code?: string }[];
  spawn?: { started: number; code?: string };
  env: Record<string, string | null>;
  tunnel: { target: string; status: number | string; refused?: string; echoed?: string }[];
  get: { url: string; status: number | string; refused?: string; body?: string }[];
  run?: { code: number | string; stdout: string; stderr: string };
  bomb?: number | null;
  hog?: (string | number | null)[];
}

export interface SandboxPlace {
  readonly root: string;
  readonly home: string;
  readonly dataDir: string;
  readonly sandboxDir: string;
}

/** A fresh place: a home with ~/.ssh/id_ed25519 and ~/.aws/credentials, a store, another server's state. */
export function makePlace(prefix = 'sb-sandbox-'): SandboxPlace {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const dataDir = join(home, '.switchboard');
  const sandboxDir = join(dataDir, 'sandbox');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.aws'), { recursive: true });
  mkdirSync(join(sandboxDir, 'other'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key=SECRET');
  writeFileSync(join(dataDir, 'switchboard.db'), 'the store');
  writeFileSync(join(sandboxDir, 'other', 'state.json'), '{"token":"other server"}');
  return { root, home, dataDir, sandboxDir };
}

/** Connections made, closed (and their trees ended) by `cleanUp`. */
export class ProbeServers {
  private readonly connections: Connection[] = [];
  private readonly stateDirs: string[] = [];

  constructor(private readonly place: SandboxPlace) {}

  /** A sandboxed (or not) server: the witness unless `extra` says otherwise. */
  add(
    name: string,
    sandbox: RawServerEntry['sandbox'],
    extra: Partial<RawServerEntry> = {},
    options: Partial<ConnectionOptions> = {},
  ): { conn: Connection; logs: LogEntry[]; stateDir: string } {
    const stateDir = join(this.place.sandboxDir, name);
    this.stateDirs.push(stateDir);
    const logs: LogEntry[] = [];
    const conn = new Connection({
      config: normalizeServerEntry({
        name,
        command: process.execPath,
        args: [sandboxProbeBin],
        protocol: 'legacy',
        ...(sandbox !== undefined && { sandbox }),
        ...extra,
      }),
      env: { ...process.env, HOME: this.place.home },
      eraStore: new MemoryEraVerdictStore(),
      sandboxDir: this.place.sandboxDir,
      sandboxNetwork: { judge: sandboxDestinations },
      onLog: (entry) => logs.push(entry),
      ...options,
    });
    this.connections.push(conn);
    return { conn, logs, stateDir };
  }

  async cleanUp(): Promise<void> {
    await Promise.all(this.connections.splice(0).map((c) => c.close()));
    // Nothing of a sandbox may outlive its connection (see the tree test); a failure orphans nothing.
    for (const dir of this.stateDirs.splice(0)) killSurvivors(processesWithEnv('HOME', dir));
  }
}

export function removePlace(place: SandboxPlace): void {
  rmSync(place.root, { recursive: true, force: true });
}

/** Calls the witness and returns its report. */
export async function probe(conn: Connection, args: Record<string, unknown>): Promise<Report> {
  const result = await conn.callTool('probe', args);
  expect(result.isError, result.text).toBe(false);
  return JSON.parse(result.text) as Report;
}

/** The sandbox line the connection logged when it started ("sandboxed (bubblewrap); …"). */
export function sandboxLine(logs: readonly LogEntry[]): string {
  return logs.find((l) => l.text.startsWith('sandboxed ('))?.text ?? '';
}

export interface Listener {
  readonly server: Server;
  readonly port: number;
  accepted(): number;
  close(): void;
}

/** A TCP listener on 127.0.0.1 that answers "pong:<what it got>" and counts connections. */
export function listenEcho(): Promise<Listener> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.on('data', (d) => socket.write(`pong:${d}`));
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, port, accepted: () => accepted, close: () => server.close() });
    });
  });
}

/** An HTTP server on 127.0.0.1 that answers "hello <path>". */
export function listenWeb(): Promise<{ server: HttpServer; port: number; close(): void }> {
  const server = createHttpServer((req, res) => res.end(`hello ${req.url}`));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, port, close: () => server.close() });
    });
  });
}
