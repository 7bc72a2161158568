import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { demoSshdAddress, probeSshBanner } from '../../src/cli/sshd-probe.js';

/**
 * The probe `switchboard start` uses to offer the SSH example: real listeners on 127.0.0.1
 * that greet like sshd (with and without lines before the version), like something else, or
 * not at all, and a port where nothing listens.
 */
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

async function listen(greet: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    greet(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('probeSshBanner', () => {
  it('returns the identification line of an SSH server, also after other lines, sent in pieces', async () => {
    const plain = await listen((s) => s.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n'));
    expect(await probeSshBanner('127.0.0.1', plain, 5000)).toBe('SSH-2.0-OpenSSH_9.2p1 Debian-2');
    const chatty = await listen((s) => {
      s.write('Welcome to the host\r\nSSH-2.0-dro');
      setImmediate(() => s.write('pbear\r\n'));
    });
    expect(await probeSshBanner('127.0.0.1', chatty, 5000)).toBe('SSH-2.0-dropbear');
  });

  it('returns nothing for another protocol, a silent server, a closed port or an endless line', async () => {
    const http = await listen((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    expect(await probeSshBanner('127.0.0.1', http, 5000)).toBeUndefined();
    const silent = await listen(() => undefined);
    const started = Date.now();
    expect(await probeSshBanner('127.0.0.1', silent, 300)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const flood = await listen((s) => s.write('x'.repeat(20_000)));
    expect(await probeSshBanner('127.0.0.1', flood, 5000)).toBeUndefined();
    const closed = await listen(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    expect(await probeSshBanner('127.0.0.1', closed, 5000)).toBeUndefined();
  });

  it('looks at 127.0.0.1:22 unless SWITCHBOARD_DEMO_SSHD names another host:port', () => {
    expect(demoSshdAddress({})).toEqual({ host: '127.0.0.1', port: 22 });
    expect(demoSshdAddress({ SWITCHBOARD_DEMO_SSHD: '127.0.0.1:2222' })).toEqual({
      host: '127.0.0.1',
      port: 2222,
    });
    expect(demoSshdAddress({ SWITCHBOARD_DEMO_SSHD: 'nonsense' })).toEqual({ host: '127.0.0.1', port: 22 });
    expect(demoSshdAddress({ SWITCHBOARD_DEMO_SSHD: 'h:99999' })).toEqual({ host: '127.0.0.1', port: 22 });
  });
});
