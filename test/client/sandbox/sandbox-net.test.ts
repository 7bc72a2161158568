import { existsSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingHttpHeaders,
} from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  openSandboxNet,
  type SandboxNet,
  type SandboxNetEvent,
} from '../../../src/client/sandbox/sandbox-net.js';
import type { ResolvedAddress } from '../../../src/client/transports/guarded-fetch.js';
import { normalizeSandboxNetwork, sandboxNetworkSchema } from '../../../src/core/config/sandbox-network.js';
import { sandboxDestinations } from '../../../src/policy/sandbox-destination.js';
import { eventually } from '../../helpers/wait.js';

/**
 * The host's side of a filtered sandbox network, spoken to over its unix sockets as the relay
 * inside a sandbox does (no sandbox needed for that): CONNECT and absolute-URI requests judged
 * by the real policy, names resolved by a resolver of the test's (public names cannot be
 * resolved here), listeners on 127.0.0.1 only.
 */
let echo: Server;
let echoPort: number;
let web: HttpServer;
let webPort: number;
let seenHeaders: IncomingHttpHeaders | undefined;
const nets: SandboxNet[] = [];

function listenOn(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

beforeAll(async () => {
  echo = createServer((socket) => socket.on('data', (d) => socket.write(`pong:${d}`)));
  echoPort = await listenOn(echo);
  web = createHttpServer((req, res) => {
    seenHeaders = req.headers;
    res.end(`hello ${req.url}`);
  });
  webPort = await listenOn(web);
});
afterEach(async () => {
  await Promise.all(nets.splice(0).map((n) => n.close()));
});
afterAll(() => {
  echo.close();
  web.close();
});

const NAMES: Record<string, string[]> = {
  'api.example.test': ['127.0.0.1'],
  'rebind.example.test': ['93.184.216.34', '127.0.0.1'],
  'lan.example.test': ['10.0.0.9'],
};
/** Every name the proxy asked the resolver for. */
const asked: string[] = [];
async function fakeResolve(name: string): Promise<readonly ResolvedAddress[]> {
  asked.push(name);
  const found = NAMES[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

async function open(raw: unknown, extra: { maxConnections?: number } = {}) {
  const network = normalizeSandboxNetwork(sandboxNetworkSchema.parse(raw));
  if (network.kind !== 'filtered') throw new Error('not filtered');
  const events: SandboxNetEvent[] = [];
  const net = await openSandboxNet(network, {
    judge: sandboxDestinations,
    resolve: fakeResolve,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  nets.push(net);
  return { net, events };
}

/** A raw exchange on a socket file: what is written, and everything read until it closes or `until` matches. */
function exchange(path: string, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(got);
    }, 5000);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => {
      got += chunk.toString();
      if (until?.test(got)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    // Closed by the other end before all was written (a refused connection): what was read is the answer.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(got) : reject(error),
    );
  });
}

const connectRequest = (target: string, after = '') =>
  `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n${after}`;

describe('the sandbox proxy', () => {
  it('tunnels CONNECT to an allowed destination, in any spelling of its address, and to a name resolved in the host', async () => {
    const { net } = await open({ loopback: true, hosts: [] });
    const proxy = join(net.dir, 'proxy.sock');
    for (const host of ['127.0.0.1', '0x7f.1', '2130706433', 'localhost']) {
      if (host === 'localhost') NAMES.localhost = ['127.0.0.1'];
      const answer = await exchange(proxy, connectRequest(`${host}:${echoPort}`, 'ping'), /pong:ping/);
      expect(answer, host).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\npong:ping$/);
    }
    const named = await open({ loopback: [echoPort], hosts: [`api.example.test:${echoPort}`] });
    const answer = await exchange(
      join(named.net.dir, 'proxy.sock'),
      connectRequest(`api.example.test:${echoPort}`, 'x'),
      /pong:x/,
    );
    expect(answer).toMatch(/pong:x$/);
  });

  it('answers a refused destination 403 with the reason (status, header, body) and reports it', async () => {
    const { net, events } = await open({ hosts: [`api.example.test:${echoPort}`] });
    const proxy = join(net.dir, 'proxy.sock');
    const cases: [string, RegExp][] = [
      ['evil.test:443', /evil\.test is not listed/],
      // Listed, but resolving to the host's loopback, which the profile does not grant.
      [`api.example.test:${echoPort}`, /loopback address.*may not reach the host's loopback/],
      ['api.example.test:22', /listed in sandbox\.network\.hosts for port \d+ only, not 22/],
      ['rebind.example.test:443', /not listed/],
      ['secret-token.exfil.test:443', /not listed/],
      [`127.0.0.1:${echoPort}`, /may not reach the host's loopback/],
      ['169.254.169.254:80', /metadata/],
      [`0.0.0.0:${echoPort}`, /unspecified/],
    ];
    for (const [target, reason] of cases) {
      const answer = await exchange(proxy, connectRequest(target));
      expect(answer, target).toMatch(/^HTTP\/1\.1 403 Forbidden by the sandbox\r\n/);
      expect(answer).toMatch(/X-Switchboard-Refused: .*refused\./);
      expect(answer.split('\r\n\r\n')[1], target).toMatch(reason);
    }
    expect(events.filter((e) => e.kind === 'refused')).toHaveLength(cases.length);
    // An unlisted name is never resolved: a DNS query would carry out whatever the name holds.
    expect(asked).not.toContain('evil.test');
    expect(asked).not.toContain('rebind.example.test');
    expect(asked.some((name) => name.includes('exfil'))).toBe(false);
    expect(events[0]!.text).toMatch(/^CONNECT evil\.test:443: /);
  });

  it('answers 400 to what is not a destination, and 502 to a name that does not resolve', async () => {
    const { net } = await open({ hosts: ['*.example.test'], loopback: true });
    const proxy = join(net.dir, 'proxy.sock');
    for (const target of ['127.0.0.1', 'user@127.0.0.1:80', '127.0.0.1:99999', '[::1:80', 'a/b:80'])
      expect(await exchange(proxy, connectRequest(target)), target).toMatch(/^HTTP\/1\.1 400 /);
    expect(await exchange(proxy, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await exchange(proxy, connectRequest('missing.example.test:443'))).toMatch(
      /^HTTP\/1\.1 502 [\s\S]*does not resolve \(ENOTFOUND\)/,
    );
  });

  it('forwards an absolute http:// request without the proxy headers, and refuses one to an unlisted host', async () => {
    const { net } = await open('loopback');
    const proxy = join(net.dir, 'proxy.sock');
    const answer = await exchange(
      proxy,
      `GET http://127.0.0.1:${webPort}/path?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${webPort}\r\nProxy-Authorization: Basic c2VjcmV0\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/hello \/path\?q=1$/);
    expect(seenHeaders?.['proxy-authorization']).toBeUndefined();
    const refused = await exchange(
      proxy,
      'GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n',
    );
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toMatch(/evil\.test is not listed/);
    const https = await exchange(
      proxy,
      'GET https://127.0.0.1/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(https).toMatch(/^HTTP\/1\.1 400 [\s\S]*goes through CONNECT/);
  });

  it('mirrors a listed loopback port as plain TCP', async () => {
    const { net } = await open({ loopback: [echoPort] });
    expect(net.mirrored).toEqual([echoPort]);
    expect(await exchange(join(net.dir, `${echoPort}.sock`), 'raw', /pong:raw/)).toBe('pong:raw');
  });

  it('bounds the connections open at once, and ends every tunnel and its sockets on close', async () => {
    const { net, events } = await open('loopback', { maxConnections: 3 });
    const proxy = join(net.dir, 'proxy.sock');
    const held = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(proxy);
            socket.on('connect', () => socket.write(connectRequest(`127.0.0.1:${echoPort}`)));
            socket.once('data', () => resolve(socket));
          }),
      ),
    );
    // The fourth is closed at once, without an answer.
    expect(await exchange(proxy, connectRequest(`127.0.0.1:${echoPort}`))).toBe('');
    expect(events.some((e) => /more than 3 connections/.test(e.text))).toBe(true);
    const closed = held.map((s) => new Promise((resolve) => s.once('close', resolve)));
    await net.close();
    await Promise.all(closed);
    expect(existsSync(net.dir)).toBe(false);
    await eventually(
      () => held.every((s) => s.destroyed),
      (done) => done,
      { what: 'ended the tunnels' },
    );
  });
});
