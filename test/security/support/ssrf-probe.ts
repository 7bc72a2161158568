/**
 * An SSRF probe, run inside a network namespace of its own (namespace.ts) where only loopback
 * is up. It puts a "public" address (1.2.3.4), the metadata addresses and private ones on that
 * loopback, listens on all of them through one trap that records which local address each
 * connection was made to, starts a real Host with an injected resolver, and reports what the
 * guarded servers ended as and what the trap saw. A connect the guard should have refused
 * lands on the trap and is reported; nothing reaches beyond the namespace.
 *
 * Usage: node --import tsx ssrf-probe.ts forms|rebinding   (prints one JSON line)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedAddress } from '../../../src/client/transports/guarded-fetch.js';
import { Host, type ServerStatus } from '../../../src/host/host.js';
import { openStore } from '../../../src/storage/open-store.js';
import { startKitchenSinkHttp } from '../../fixtures/kitchen-sink.js';

const PUBLIC = '1.2.3.4';
const EXTRA_V4 = [
  '1.2.3.4',
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '10.0.0.1',
  '192.168.1.1',
  '100.64.0.1',
];
const EXTRA_V6 = ['fd00:ec2::254', 'fc00::1', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1'];
const FINAL = new Set(['connected', 'failed', 'needs_auth', 'disabled']);

/** A TCP listener on every local address that records where each connection was made to, and relays it. */
class Trap {
  readonly seen: string[] = [];
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  port = 0;

  async start(target: { host: string; port: number }): Promise<void> {
    this.server = createServer((socket) => {
      this.seen.push(socket.localAddress ?? 'unknown');
      const upstream = connect(target.port, target.host);
      for (const s of [socket, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) =>
      this.server?.listen({ port: 0, host: '::', ipv6Only: false }, resolve),
    );
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Ends every relayed connection: the next request needs a new socket (and a new lookup). */
  dropAll(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A resolver answering from a table the probe changes as it goes (DNS rebinding). */
class Resolver {
  readonly answers = new Map<string, string[]>();
  readonly calls: string[] = [];

  readonly resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    this.calls.push(hostname);
    const addresses = this.answers.get(hostname);
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

function setUpLoopback(): void {
  for (const a of EXTRA_V4) execFileSync('ip', ['addr', 'add', `${a}/32`, 'dev', 'lo']);
  for (const a of EXTRA_V6) execFileSync('ip', ['-6', 'addr', 'add', `${a}/128`, 'dev', 'lo', 'nodad']);
}

function state(status: ServerStatus | undefined) {
  return status && { state: status.state, code: status.error?.code, message: status.error?.message };
}

/** Waits (bounded) until `ready` holds for the host's server list. */
async function until(
  host: Host,
  ready: (list: readonly ServerStatus[]) => boolean,
  timeoutMs = 30_000,
): Promise<readonly ServerStatus[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  for await (const list of host.serverUpdates(signal)) if (ready(list)) return list;
  throw new Error(`timed out: ${JSON.stringify(host.servers().map((s) => [s.name, s.state]))}`);
}

/** Waits (bounded) until the catalog lists `tool`. */
async function listed(host: Host, tool: string, timeoutMs = 30_000): Promise<void> {
  if (host.catalog().lookup(tool)) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${tool}`)), timeoutMs);
    const check = () => {
      if (!host.catalog().lookup(tool)) return;
      clearTimeout(timer);
      host.off('catalog', check);
      resolve();
    };
    host.on('catalog', check);
  });
}

const settled = (names: readonly string[]) => (list: readonly ServerStatus[]) =>
  names.every((n) => {
    const s = list.find((x) => x.name === n);
    return s !== undefined && FINAL.has(s.state);
  });

const inState = (name: string, wanted: string) => (list: readonly ServerStatus[]) =>
  list.find((s) => s.name === name)?.state === wanted;

/** An MCP endpoint that asks for OAuth and points discovery at addresses the guard must refuse. */
function startOAuthBait(seen: string[]): Promise<{ server: HttpServer; port: number }> {
  const server = createHttpServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    const challenge = (metadata: string) =>
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
    if (req.url?.startsWith('/a/')) return challenge(`http://169.254.169.254:${port}/prm`);
    if (req.url?.startsWith('/b/')) return challenge(`http://bait.test:${port}/prm-b`);
    if (req.url?.startsWith('/c/')) return challenge(`http://[::ffff:a9fe:a9fe]:${port}/prm`);
    if (req.url === '/prm-b') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          resource: `http://bait.test:${port}/b/mcp`,
          authorization_servers: [`https://meta.test:${port}/`],
        }),
      );
    }
    res.writeHead(404).end();
  });
  server.on('connection', (socket) => seen.push(socket.localAddress ?? 'unknown'));
  return new Promise((resolve) =>
    server.listen({ port: 0, host: '::', ipv6Only: false }, () =>
      resolve({ server, port: (server.address() as AddressInfo).port }),
    ),
  );
}

async function forms(dataDir: string, trap: Trap, resolver: Resolver): Promise<Record<string, unknown>> {
  const p = trap.port;
  const hostile: Record<string, string | { url: string; transport?: string; auth?: unknown }> = {
    'lit-loopback': `http://127.0.0.1:${p}/mcp`,
    'lit-hex-short': `http://0x7f.1:${p}/mcp`,
    'lit-decimal': `http://2130706433:${p}/mcp`,
    'lit-octal': `http://017700000001:${p}/mcp`,
    'lit-short': `http://127.1:${p}/mcp`,
    'lit-v6-loopback': `http://[::1]:${p}/mcp`,
    'lit-mapped-loopback': `http://[::ffff:127.0.0.1]:${p}/mcp`,
    'lit-mapped-loopback-hex': `http://[::ffff:7f00:1]:${p}/mcp`,
    'lit-metadata': `http://169.254.169.254:${p}/mcp`,
    'lit-mapped-metadata': `http://[::ffff:169.254.169.254]:${p}/mcp`,
    'lit-mapped-metadata-hex': `http://[::ffff:a9fe:a9fe]:${p}/mcp`,
    'lit-metadata-hex': `http://0xa9fea9fe:${p}/mcp`,
    'lit-metadata-decimal': `http://2852039166:${p}/mcp`,
    'lit-nat64-metadata': `http://[64:ff9b::a9fe:a9fe]:${p}/mcp`,
    'lit-6to4-metadata': `http://[2002:a9fe:a9fe::1]:${p}/mcp`,
    'lit-teredo-metadata': `http://[2001:0:4136:e378:8000:63bf:5601:5601]:${p}/mcp`,
    'lit-aws-v6-metadata': `http://[fd00:ec2::254]:${p}/mcp`,
    'lit-ula': `http://[fc00::1]:${p}/mcp`,
    'lit-alibaba': `http://100.100.100.200:${p}/mcp`,
    'lit-ecs': `http://169.254.170.2:${p}/mcp`,
    'lit-private-10': `http://10.0.0.1:${p}/mcp`,
    'lit-private-192': `http://192.168.1.1:${p}/mcp`,
    'lit-cgnat': `http://100.64.0.1:${p}/mcp`,
    'lit-any': `http://0.0.0.0:${p}/mcp`,
    'lit-any-short': `http://0:${p}/mcp`,
    'lit-v6-any': `http://[::]:${p}/mcp`,
    'name-loopback': `http://loop.test:${p}/mcp`,
    'name-localhost': `http://localhost:${p}/mcp`,
    'name-metadata': `http://meta.test:${p}/mcp`,
    'name-mapped': `http://mapped.test:${p}/mcp`,
    'name-mapped-hex': `http://mappedhex.test:${p}/mcp`,
    'name-nat64': `http://nat64.test:${p}/mcp`,
    'name-zone': `http://zone.test:${p}/mcp`,
    'name-private': `http://private.test:${p}/mcp`,
    'name-any': `http://any.test:${p}/mcp`,
    'name-mixed': `http://mixed.test:${p}/mcp`,
    'sse-metadata': { url: `http://meta.test:${p}/sse`, transport: 'sse' },
    'sse-mapped': { url: `http://[::ffff:a9fe:a9fe]:${p}/sse`, transport: 'sse' },
  };
  const answers: Record<string, string[]> = {
    'good.test': [PUBLIC],
    'bait.test': [PUBLIC],
    'loop.test': ['127.0.0.1'],
    localhost: ['127.0.0.1', '::1'],
    'meta.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:169.254.169.254'],
    'mappedhex.test': ['::ffff:a9fe:a9fe'],
    'nat64.test': ['64:ff9b::a9fe:a9fe'],
    'zone.test': ['fe80::1%lo'],
    'private.test': ['10.0.0.1'],
    'any.test': ['0.0.0.0'],
    'mixed.test': [PUBLIC, '169.254.169.254'],
  };
  for (const [name, addresses] of Object.entries(answers)) resolver.answers.set(name, addresses);
  const baitSeen: string[] = [];
  const bait = await startOAuthBait(baitSeen);
  const oauth = {
    'oauth-resource-metadata': { url: `http://bait.test:${bait.port}/a/mcp`, auth: { type: 'oauth' } },
    'oauth-authorization-server': { url: `http://bait.test:${bait.port}/b/mcp`, auth: { type: 'oauth' } },
    'oauth-mapped': { url: `http://bait.test:${bait.port}/c/mcp`, auth: { type: 'oauth' } },
  };
  const entries = { ...hostile, ...oauth, good: `http://good.test:${p}/mcp` };
  // Registrations as the store keeps them: restored at start, judged at connect.
  const store = await openStore(join(dataDir, 'switchboard.db'));
  for (const [name, entry] of Object.entries(entries)) {
    await store.servers.upsert({
      name,
      entry:
        typeof entry === 'string' ? { url: entry, protocol: 'legacy' } : { ...entry, protocol: 'legacy' },
      enabled: true,
      source: 'agent',
    });
  }
  await store.close();
  const host = await Host.create({
    dataDir,
    governance: { profile: 'daemon' },
    resolver: resolver.resolve,
    firstConnectDelaysMs: [],
  });
  try {
    const names = Object.keys(entries);
    const list = await until(host, settled(names));
    const restored = Object.fromEntries(names.map((n) => [n, state(list.find((s) => s.name === n))]));
    // The same URLs registered now: refused before anything is stored.
    const registered: Record<string, string | undefined> = {};
    for (const [name, entry] of Object.entries(hostile)) {
      const body = typeof entry === 'string' ? { url: entry } : entry;
      registered[name] = await host
        .register({ name: `again-${name}`, ...body }, 'api')
        .then(() => 'registered')
        .catch((error: { code?: string }) => error.code);
    }
    return { restored, registered, trapSeen: trap.seen, baitSeen, lookups: resolver.calls };
  } finally {
    await host.close();
    await new Promise<void>((resolve) => bait.server.close(() => resolve()));
  }
}

async function rebinding(dataDir: string, trap: Trap, resolver: Resolver): Promise<Record<string, unknown>> {
  const p = trap.port;
  const events: Record<string, unknown>[] = [];
  const note = (step: string, extra: Record<string, unknown> = {}) =>
    events.push({ step, trapSeen: [...trap.seen], ...extra });
  resolver.answers.set('rebind.test', [PUBLIC]);
  resolver.answers.set('swap.test', [PUBLIC]);
  let host = await Host.create({
    dataDir,
    governance: { profile: 'daemon' },
    resolver: resolver.resolve,
    firstConnectDelaysMs: [],
  });
  try {
    await host.register({ name: 'rebind', url: `http://rebind.test:${p}/mcp`, protocol: 'legacy' }, 'agent');
    await until(host, inState('rebind', 'connected'));
    note('connected at the public address');

    // 1. The name now answers loopback: the reload's connect is refused.
    resolver.answers.set('rebind.test', ['127.0.0.1']);
    host.reload('rebind');
    let list = await until(host, inState('rebind', 'failed'));
    note('reload after rebinding to loopback', { rebind: state(list.find((s) => s.name === 'rebind')) });

    // 2. Alternating answers, reload after reload: never one connect to the metadata address.
    const rounds: unknown[] = [];
    for (let round = 0; round < 6; round++) {
      const bad = round % 2 === 1;
      resolver.answers.set('rebind.test', bad ? ['169.254.169.254'] : [PUBLIC]);
      host.reload('rebind');
      list = await until(host, inState('rebind', bad ? 'failed' : 'connected'));
      rounds.push({ bad, ...state(list.find((s) => s.name === 'rebind')) });
    }
    note('alternating reloads', { rounds });

    // 3. Mid-session: the socket drops, the name now answers the metadata address; the next
    // request needs a new socket, whose connect is refused, and the server is not retried.
    await host.register({ name: 'swap', url: `http://swap.test:${p}/mcp`, protocol: 'legacy' }, 'agent');
    await until(host, inState('swap', 'connected'));
    await listed(host, 'mcp__swap__echo');
    resolver.answers.set('swap.test', ['::ffff:169.254.169.254']);
    const lookupsBefore = resolver.calls.filter((c) => c === 'swap.test').length;
    trap.dropAll();
    const call = await host
      .callTool('mcp__swap__echo', { text: 'after rebinding' })
      .then(() => 'answered')
      .catch((error: { code?: string }) => error.code ?? 'error');
    list = await until(host, inState('swap', 'failed'));
    note('mid-session rebinding', {
      call,
      swap: state(list.find((s) => s.name === 'swap')),
      lookups: resolver.calls.filter((c) => c === 'swap.test').length - lookupsBefore,
    });

    // 4. A restart restores both registrations; the names now answer the metadata address.
    await host.close();
    resolver.answers.set('rebind.test', ['169.254.169.254']);
    resolver.answers.set('swap.test', ['::ffff:a9fe:a9fe']);
    host = await Host.create({
      dataDir,
      governance: { profile: 'daemon' },
      resolver: resolver.resolve,
      firstConnectDelaysMs: [],
    });
    list = await until(host, settled(['rebind', 'swap']));
    note('restart', {
      rebind: state(list.find((s) => s.name === 'rebind')),
      swap: state(list.find((s) => s.name === 'swap')),
    });
    return { events, trapSeen: trap.seen };
  } finally {
    await host.close();
  }
}

async function main(): Promise<void> {
  const scenario = process.argv[2];
  setUpLoopback();
  const kitchen = await startKitchenSinkHttp({ era: 'legacy' });
  const trap = new Trap();
  await trap.start({ host: '127.0.0.1', port: Number(new URL(kitchen.url).port) });
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-ssrf-'));
  const resolver = new Resolver();
  try {
    const run = scenario === 'forms' ? forms : scenario === 'rebinding' ? rebinding : undefined;
    if (!run) throw new Error(`unknown scenario "${scenario}"`);
    const report = await run(dataDir, trap, resolver);
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await trap.close();
    await kitchen.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
