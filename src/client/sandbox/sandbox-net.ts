import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { FilteredNetwork } from '../../core/config/sandbox-network.js';
import { type AddressResolver, systemResolver } from '../transports/guarded-fetch.js';
import { type ProxyTarget, parseConnectTarget, parseForwardTarget, showTarget } from './proxy-target.js';

/**
 * The host's side of a filtered sandbox network (`loopback`, `hosts`): the sandbox has a
 * network namespace of its own, where nothing leaves (no route), and reaches the host only
 * through unix sockets in a directory bound read-only into it (`/run/switchboard-net`):
 *
 * - `proxy.sock`, an HTTP proxy: `CONNECT host:port` tunnels and absolute-URI `http://`
 *   requests. Each destination is parsed as a URL parses it, a listed name resolved here in
 *   the host (an unlisted one never: no DNS query leaves for it), and every address judged (`policy/sandbox-destination.ts`, injected as `judge`); the socket
 *   connects to the address that was judged. A refusal is answered `403` with the reason, in
 *   the status line, a header and the body, and reported through `onEvent`.
 * - `<port>.sock` for each loopback port the profile lists: plain TCP to the host's
 *   127.0.0.1:<port>.
 *
 * Inside, a relay (`net-bridge.ts`) listens on the sandbox's own 127.0.0.1 and forwards to
 * these sockets. Unix sockets, because a socket file is reachable from another network
 * namespace and a TCP port on the host's loopback is not.
 */

/**
 * Judges destinations (policy/sandbox-destination.ts): whether a name may be resolved at all
 * (an unlisted one is not, so no DNS query carries what the server wants out), and then the
 * destination with every address it resolved to.
 */
export interface DestinationJudge {
  resolvesName(network: FilteredNetwork, destination: ProxyTarget): boolean;
  decide(
    network: FilteredNetwork,
    destination: ProxyTarget,
    addresses: readonly string[],
  ): { readonly allowed: boolean; readonly reason: string; readonly address?: string };
}

/** What the host gives a filtered sandbox network. */
export interface SandboxNetOptions {
  readonly judge: DestinationJudge;
  /** Resolves names (default: the system resolver). */
  readonly resolve?: AddressResolver;
  /** Every refusal (and error) in a line, for the server's log. */
  readonly onEvent?: (event: SandboxNetEvent) => void;
  /** Connections open at once through this sandbox's sockets; more are refused. Default 256. */
  readonly maxConnections?: number;
  /** How long a connect to a destination may take, ms. Default 10 s. */
  readonly connectTimeoutMs?: number;
}

export interface SandboxNetEvent {
  readonly kind: 'refused' | 'failed';
  readonly text: string;
}

/** The sockets of one sandbox, open until `close()`. */
export interface SandboxNet {
  /** The directory holding the sockets (bound into the sandbox). */
  readonly dir: string;
  /** Loopback ports mirrored (a `<port>.sock` each). */
  readonly mirrored: readonly number[];
  close(): Promise<void>;
}

/** Socket directories open now: removed when this process exits, however the sandboxes ended. */
const openDirs = new Set<string>();
let exitHook = false;

/** Opens the sockets of one sandbox's filtered network. */
export async function openSandboxNet(
  network: FilteredNetwork,
  options: SandboxNetOptions,
): Promise<SandboxNet> {
  // In the system's temporary directory: a unix socket's path is limited to 107 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'sb-net-'));
  chmodSync(dir, 0o700);
  openDirs.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const open of openDirs) rmSync(open, { recursive: true, force: true });
    });
  }
  const live = new Set<Duplex>();
  const max = options.maxConnections ?? 256;
  const admit = (socket: Duplex): boolean => {
    if (live.size >= max) {
      socket.destroy();
      options.onEvent?.({
        kind: 'refused',
        text: `more than ${max} connections at once through the sandbox's network; refused.`,
      });
      return false;
    }
    live.add(socket);
    socket.once('close', () => live.delete(socket));
    return true;
  };
  const relay = new Relay(network, options, admit);
  const servers: Server[] = [relay.proxy()];
  const mirrored = network.loopback === 'any' || network.loopback === 'none' ? [] : network.loopback;
  for (const port of mirrored) servers.push(relay.mirror(port));
  try {
    await Promise.all(
      servers.map(
        (server, i) =>
          new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(join(dir, i === 0 ? 'proxy.sock' : `${mirrored[i - 1]}.sock`), () => resolve());
          }),
      ),
    );
  } catch (error) {
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
    openDirs.delete(dir);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    dir,
    mirrored,
    close: () => {
      closing ??= (async () => {
        for (const socket of live) socket.destroy();
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
        rmSync(dir, { recursive: true, force: true });
        openDirs.delete(dir);
      })();
      return closing;
    },
  };
}

/** Judges and connects one sandbox's requests. */
class Relay {
  constructor(
    private readonly network: FilteredNetwork,
    private readonly options: SandboxNetOptions,
    private readonly admit: (socket: Duplex) => boolean,
  ) {}

  /** The HTTP proxy: CONNECT tunnels and absolute-URI http:// requests. */
  proxy(): Server {
    const server = createHttpServer({ requestTimeout: 60_000 }, (req, res) => this.forward(req, res));
    server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) =>
      this.tunnel(req, client, head),
    );
    server.on('connection', (socket: Socket) => this.admit(socket));
    // A malformed request: answered 400 by Node, and the socket ended.
    server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    return server;
  }

  /** `<port>.sock`: plain TCP to the host's 127.0.0.1:<port>. */
  mirror(port: number): Server {
    return createServer((inner) => {
      if (!this.admit(inner)) return;
      inner.on('error', () => inner.destroy());
      void this.open({ host: '127.0.0.1', port }, `relay to 127.0.0.1:${port}`).then((outcome) => {
        if ('refused' in outcome) return inner.destroy();
        splice(inner, outcome.socket);
      });
    });
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const parsed = parseConnectTarget(req.url);
    if (!parsed.ok) return answer(client, 400, 'Bad Request', parsed.reason);
    const outcome = await this.open(parsed.target, `CONNECT ${showTarget(parsed.target)}`);
    if ('refused' in outcome) return answer(client, outcome.status, outcome.statusText, outcome.refused);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) outcome.socket.write(head);
    splice(client, outcome.socket);
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = parseForwardTarget(req.url);
    if (!parsed.ok) return respond(res, 400, 'Bad Request', parsed.reason);
    const what = `${req.method} http://${showTarget(parsed.target)}${parsed.path ?? '/'}`;
    const decision = await this.decide(parsed.target, what);
    if ('refused' in decision) return respond(res, decision.status, decision.statusText, decision.refused);
    const upstream = request({
      host: decision.address,
      port: parsed.target.port,
      method: req.method,
      path: parsed.path,
      headers: { ...forwardHeaders(req.headers), host: req.headers.host ?? showTarget(parsed.target) },
      agent: false,
      timeout: this.options.connectTimeoutMs ?? 10_000,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardHeaders(answer.headers));
      answer.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.on('error', (error) => {
      this.report('failed', `${what}: ${error.message}`);
      if (!res.headersSent) respond(res, 502, 'Bad Gateway', `${what} failed: ${error.message}`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  /** Judges a destination and connects to the judged address. */
  private async open(target: ProxyTarget, what: string): Promise<Opened> {
    const decision = await this.decide(target, what);
    if ('refused' in decision) return decision;
    return new Promise((resolve) => {
      const socket = connect({ host: decision.address, port: target.port });
      const timer = setTimeout(
        () => socket.destroy(new Error('connect timed out')),
        this.options.connectTimeoutMs ?? 10_000,
      );
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        socket.on('error', () => socket.destroy());
        resolve({ socket });
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const text = `${what}: connecting to ${decision.address} failed (${error.code ?? error.message})`;
        this.report('failed', text);
        resolve({ refused: `${text}.`, status: 502, statusText: 'Bad Gateway' });
      });
    });
  }

  private async decide(target: ProxyTarget, what: string): Promise<Decided> {
    let addresses: readonly string[] = [];
    if (isIP(target.host) === 0 && this.options.judge.resolvesName(this.network, target)) {
      try {
        addresses = (await (this.options.resolve ?? systemResolver)(target.host)).map((a) => a.address);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        const text = `${what}: ${target.host} does not resolve (${code}); refused.`;
        this.report('refused', text);
        return { refused: text, status: 502, statusText: 'Bad Gateway' };
      }
    }
    const decision = this.options.judge.decide(this.network, target, addresses);
    if (!decision.allowed || decision.address === undefined) {
      const text = `${what}: ${decision.reason}`;
      this.report('refused', text);
      return { refused: text, status: 403, statusText: 'Forbidden by the sandbox' };
    }
    return { address: decision.address };
  }

  private report(kind: SandboxNetEvent['kind'], text: string): void {
    this.options.onEvent?.({ kind, text });
  }
}

type Refused = { readonly refused: string; readonly status: number; readonly statusText: string };
type Decided = Refused | { readonly address: string };
type Opened = Refused | { readonly socket: Socket };

/** Both ways until either side ends; an error on one ends both. */
function splice(a: Duplex, b: Duplex): void {
  a.pipe(b).pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.once('close', end);
  b.once('close', end);
  a.on('error', end);
  b.on('error', end);
}

/** A refusal on a raw socket (CONNECT): the reason in the status line's neighbour header and the body. */
function answer(socket: Socket, status: number, statusText: string, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `X-Switchboard-Refused: ${headerSafe(reason)}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

function respond(res: ServerResponse, status: number, statusText: string, reason: string): void {
  const body = `${reason}\n`;
  res.writeHead(status, statusText, {
    'content-type': 'text/plain; charset=utf-8',
    'x-switchboard-refused': headerSafe(reason),
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/** A reason as a header value: printable ASCII only. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000);
}

/** Hop-by-hop and proxy headers (RFC 9110 §7.6.1) stay on this hop. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}
