/**
 * The sandbox's side of a filtered network: a small Node program that runs first inside the
 * sandbox, in its own network namespace, listens on that namespace's loopback and relays each
 * connection to a unix socket of the host's side (`sandbox-net.ts`), then starts the server
 * with `HTTP_PROXY`/`HTTPS_PROXY` naming its proxy port, and ends with the same status.
 *
 * Run as `node -e <BRIDGE_SOURCE> -- <socket dir> <mirrored ports, comma-separated> <command> <args…>`:
 * a script given on the command line needs no file of its own in the sandbox, and the same
 * Node that runs the host runs it (its installation is granted read-only). Plain CommonJS, so
 * it runs as it is on every supported Node. Where a sandbox's network is filtered, its start
 * costs this Node's start (docs/sandbox.md has the figures); `none` and `host` run none.
 *
 * Listening on the sandbox's own loopback cannot reach anything by itself: the namespace has
 * no other interface and no route. The proxy port is chosen by the kernel (port 0) so it never
 * takes a port the server wants.
 */
/** Where the host's sockets are inside the sandbox. */
export const SANDBOX_NET_DIR = '/run/switchboard-net';

export const BRIDGE_SOURCE = `'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const [dir, ports, command, ...args] = process.argv.slice(1);
const relay = (path) => (inner) => {
  const outer = net.connect(path);
  const end = () => { inner.destroy(); outer.destroy(); };
  inner.on('error', end); outer.on('error', end); inner.on('close', end); outer.on('close', end);
  inner.pipe(outer).pipe(inner);
};
const listen = (server, port, host) => new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen({ port, host, exclusive: true }, () => resolve(server.address().port));
});
(async () => {
  const proxyPort = await listen(net.createServer(relay(dir + '/proxy.sock')), 0, '127.0.0.1');
  for (const port of ports ? ports.split(',').map(Number) : []) {
    await listen(net.createServer(relay(dir + '/' + port + '.sock')), port, '127.0.0.1');
    // localhost may resolve to ::1 first; mirrored there too where the namespace has IPv6.
    await listen(net.createServer(relay(dir + '/' + port + '.sock')), port, '::1').catch(() => {});
  }
  const proxy = 'http://127.0.0.1:' + proxyPort;
  const env = { ...process.env, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy,
    NODE_USE_ENV_PROXY: '1', SWITCHBOARD_SANDBOX_PROXY: proxy };
  delete env.NO_PROXY; delete env.no_proxy;
  const child = spawn(command, args, { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => { process.stderr.write('sandbox: cannot start ' + command + ': ' + error.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => {
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    process.exit(code === null ? 1 : code);
  });
})().catch((error) => { process.stderr.write('sandbox: the network relay could not start: ' + error.message + '\\n'); process.exit(125); });
`;

/** The command line that starts `command` behind the relay (inside the sandbox). Pure. */
export function bridgeCommand(
  node: string,
  socketDir: string,
  mirrored: readonly number[],
  command: string,
  args: readonly string[],
): string[] {
  return [node, '-e', BRIDGE_SOURCE, '--', socketDir, mirrored.join(','), command, ...args];
}
