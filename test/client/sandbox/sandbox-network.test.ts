import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '../../../src/client/transports/guarded-fetch.js';
import { sandboxDestinations } from '../../../src/policy/sandbox-destination.js';
import {
  type Listener,
  listenEcho,
  listenWeb,
  makePlace,
  ProbeServers,
  probe,
  removePlace,
  type SandboxPlace,
  sandboxLine,
} from './probe-harness.js';
import { skipSandbox } from './sandbox-availability.js';

/**
 * A sandbox's filtered network under real namespaces: "loopback" (the host's 127.0.0.1 through
 * the proxy the host runs), mirrored loopback ports, and an allow-list of names resolved in the
 * host (by the test's resolver: public names cannot be resolved here). Whatever is not granted
 * is refused inside the sandbox: no route for a direct connect, 403 with the reason from the
 * proxy — and the listeners on the host count what reached them.
 */
let place: SandboxPlace;
let servers: ProbeServers;
let echo: Listener;
let web: Awaited<ReturnType<typeof listenWeb>>;

beforeAll(async () => {
  place = makePlace('sb-sandbox-net-');
  servers = new ProbeServers(place);
  echo = await listenEcho();
  web = await listenWeb();
});
afterEach(() => servers.cleanUp());
afterAll(() => {
  echo.close();
  web.close();
  removePlace(place);
});

const NAMES: Record<string, string[]> = {
  'svc.example.test': ['127.0.0.1'],
  'rebind.example.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.test': ['169.254.169.254'],
};
const asked: string[] = [];
async function resolve(name: string): Promise<readonly ResolvedAddress[]> {
  asked.push(name);
  const found = NAMES[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: 4 }));
}

describe.skipIf(skipSandbox)('a sandbox’s filtered network (bubblewrap)', () => {
  it('"loopback": the host’s 127.0.0.1 through the proxy only; nothing else, and no direct route', async () => {
    const { conn, logs } = servers.add('loopback', { network: 'loopback' });
    await conn.connect();
    expect(sandboxLine(logs)).toMatch(/network: the host's loopback \(any port, through its proxy\)/);
    const before = echo.accepted();
    const report = await probe(conn, {
      // Direct: its own loopback (nothing listens there) and no route anywhere else.
      connect: [
        { host: '127.0.0.1', port: echo.port },
        { host: '192.0.2.1', port: 9 },
      ],
      tunnel: [
        `127.0.0.1:${echo.port}`,
        `0x7f.1:${echo.port}`,
        `2130706433:${echo.port}`,
        // A public address: refused by the proxy, so no packet leaves for it.
        '93.184.216.34:80',
        '169.254.169.254:80',
        `0.0.0.0:${echo.port}`,
      ],
      get: [`http://127.0.0.1:${web.port}/through-the-proxy`, 'http://93.184.216.34/'],
      env: ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'],
    });
    expect(report.connect[0]).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    expect(report.connect[1]).toMatchObject({ ok: false, code: 'ENETUNREACH' });
    expect(report.tunnel.slice(0, 3).map((t) => t.echoed)).toEqual(['pong:ping', 'pong:ping', 'pong:ping']);
    expect(report.tunnel[3]).toMatchObject({
      status: 403,
      refused: expect.stringMatching(/93\.184\.216\.34 is not listed/),
    });
    expect(report.tunnel[4]).toMatchObject({ status: 403, refused: expect.stringMatching(/metadata/) });
    expect(report.tunnel[5]).toMatchObject({ status: 403, refused: expect.stringMatching(/unspecified/) });
    expect(report.get[0]).toMatchObject({ status: 200, body: 'hello /through-the-proxy' });
    expect(report.get[1]).toMatchObject({ status: 403 });
    expect(report.env.HTTP_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.env.HTTPS_PROXY).toBe(report.env.HTTP_PROXY);
    expect(report.env.NO_PROXY).toBeNull();
    // Exactly the three tunnels reached the host's listener.
    expect(echo.accepted() - before).toBe(3);
    // Each refusal is in the server's log, saying why.
    expect(logs.map((l) => l.text)).toContainEqual(
      expect.stringMatching(/^sandbox network: CONNECT 93\.184\.216\.34:80: 93\.184\.216\.34 is not listed/),
    );
  });

  it('a proxy-aware program inside (curl) reaches the host’s loopback and is refused elsewhere', async () => {
    const { conn } = servers.add('curl', { network: 'loopback' });
    await conn.connect();
    const ok = await probe(conn, {
      run: ['curl', '-sS', '--max-time', '8', `http://127.0.0.1:${web.port}/curl`],
    });
    expect(ok.run).toMatchObject({ code: 0, stdout: 'hello /curl' });
    const refused = await probe(conn, {
      run: [
        'curl',
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--max-time',
        '8',
        'http://198.51.100.7/',
      ],
    });
    expect(refused.run?.stdout).toBe('403');
    const tls = await probe(conn, { run: ['curl', '-sS', '--max-time', '8', 'https://198.51.100.7/'] });
    expect(tls.run?.code).not.toBe(0);
    expect(tls.run?.stderr).toMatch(/403/);
  });

  it('mirrors listed loopback ports as plain TCP, and no other port', async () => {
    const { conn } = servers.add('mirrored', { network: { loopback: [echo.port] } });
    await conn.connect();
    const before = echo.accepted();
    const report = await probe(conn, {
      connect: [
        { host: '127.0.0.1', port: echo.port },
        { host: 'localhost', port: echo.port },
        { host: '127.0.0.1', port: web.port },
      ],
      tunnel: [`127.0.0.1:${web.port}`, `127.0.0.1:${echo.port}`],
    });
    expect(report.connect.map((c) => c.ok)).toEqual([true, true, false]);
    expect(report.tunnel[0]).toMatchObject({
      status: 403,
      refused: expect.stringMatching(new RegExp(`grants only port ${echo.port}`)),
    });
    expect(report.tunnel[1]!.echoed).toBe('pong:ping');
    await expect.poll(() => echo.accepted() - before).toBe(3);
  });

  it('reaches listed names resolved in the host, judging every address; never resolves an unlisted one', async () => {
    const { conn } = servers.add(
      'allow-list',
      { network: { hosts: [`svc.example.test:${echo.port}`, '*.example.test'], loopback: [echo.port] } },
      {},
      { sandboxNetwork: { judge: sandboxDestinations, resolve } },
    );
    await conn.connect();
    asked.length = 0;
    const report = await probe(conn, {
      tunnel: [
        `svc.example.test:${echo.port}`,
        // Listed (by the wildcard) on 443 and 80 only.
        `svc.example.test:${web.port}`,
        // A listed name whose answer mixes a public and a loopback address (rebinding bait).
        'rebind.example.test:443',
        'metadata.example.test:80',
        // Not listed: refused before any lookup, so no DNS query carries the name out.
        'c2VjcmV0.exfil.test:443',
      ],
    });
    expect(report.tunnel[0]!.echoed).toBe('pong:ping');
    expect(report.tunnel[1]).toMatchObject({
      status: 403,
      refused: expect.stringMatching(/ports \d+, 443, 80 only/),
    });
    expect(report.tunnel[2]).toMatchObject({ status: 403, refused: expect.stringMatching(/loopback/) });
    expect(report.tunnel[3]).toMatchObject({ status: 403, refused: expect.stringMatching(/metadata/) });
    expect(report.tunnel[4]).toMatchObject({ status: 403, refused: expect.stringMatching(/not listed/) });
    expect(asked.some((name) => name.includes('exfil'))).toBe(false);
  });

  it('does not start a filtered network without a judge of its destinations', async () => {
    const { conn } = servers.add('no-judge', { network: 'loopback' }, {}, { sandboxNetwork: undefined });
    await expect(conn.connect()).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      details: { reason: 'no-network-judge' },
    });
  });
});
