import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { StdioTransport } from '../../../src/client/transports/stdio.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../../src/core/server-config.js';
import { misbehavingBin } from '../../fixtures/paths.js';
import { processesInGroup } from '../../helpers/servers.js';

/** The stdio transport against a server that misbehaves in every way we know of. */
const open: Connection[] = [];

function misbehaving(mode: string, extra: Partial<RawServerEntry> = {}, logs: LogEntry[] = []): Connection {
  const conn = new Connection({
    config: normalizeServerEntry({
      name: `bad-${mode}`,
      command: process.execPath,
      args: [misbehavingBin, '--mode', mode],
      protocol: 'legacy',
      ...extra,
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (e) => logs.push(e),
    env: { ...process.env, SB_TEST_TOKEN: 'tok-123' },
  });
  open.push(conn);
  return conn;
}

function pidOf(conn: Connection): number {
  return (conn.activeTransport as unknown as { pid: number }).pid;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('stdio transport', () => {
  it('fails every pending call at once when the server crashes mid-call', async () => {
    const conn = misbehaving('crash-mid-call');
    await conn.connect();
    const disconnected = new Promise((resolve) => conn.once('disconnected', resolve));
    const started = Date.now();
    const [crash, other] = await Promise.all([
      conn.callTool('crash', {}).catch((e) => e),
      conn
        .callTool('echo', { text: 'x' })
        .then(() => conn.callTool('crash', {}))
        .catch((e) => e),
    ]);
    // The crash comes 50 ms after the call; nothing waits for the 120 s request timeout.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(isSwitchboardError(crash, 'UPSTREAM_DISCONNECTED')).toBe(true);
    expect(isSwitchboardError(other, 'UPSTREAM_DISCONNECTED')).toBe(true);
    expect(((await disconnected) as Error).message).toMatch(/exited with code 1/);
    expect(conn.state).toBe('disconnected');
    const after = await conn.callTool('echo', { text: 'x' }).catch((e) => e);
    expect(isSwitchboardError(after, 'UPSTREAM_DISCONNECTED')).toBe(true);
  });

  it('reconnects after a crash with a fresh process', async () => {
    const conn = misbehaving('crash-mid-call');
    await conn.connect();
    const first = pidOf(conn);
    await conn.callTool('crash', {}).catch(() => undefined);
    await conn.connect();
    expect(pidOf(conn)).not.toBe(first);
    expect((await conn.callTool('echo', { text: 'back' })).text).toBe('back');
  });

  it('times out the handshake of a server that never answers, leaving no process', async () => {
    const logs: LogEntry[] = [];
    const conn = misbehaving('hang-init', { timeouts: { connect: 0.5 } }, logs);
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'CONNECT_TIMEOUT')).toBe(true);
    expect(error.message).toMatch(/did not finish the handshake/);
    const started = logs.map((l) => /^started process (\d+)$/.exec(l.text)).find(Boolean);
    expect(started).toBeTruthy();
    // The rejection does not wait for the server to be ended; close() does.
    await conn.close();
    expect(await processesInGroup(Number(started![1]))).toEqual([]);
  });

  it('says what a server that never handshakes wrote instead of JSON-RPC, as counted', async () => {
    const logs: LogEntry[] = [];
    // 5 s: the banner is written at start, well before then even on a loaded machine.
    const conn = misbehaving('garbage-only', { timeouts: { connect: 5 } }, logs);
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'CONNECT_TIMEOUT')).toBe(true);
    const ignored = logs.filter((l) => l.source === 'stdout' && l.text.startsWith('not JSON-RPC, ignored'));
    expect(ignored).toHaveLength(12);
    expect(error.message).toContain(
      'within 5 s; it wrote 12 lines on stdout that are not JSON-RPC, the first: `Welcome to the demo server',
    );
    expect(error.details.stdoutNoise).toEqual({
      lines: 12,
      first: expect.stringMatching(/^Welcome to the demo server =.{80,}…$/),
    });
  });

  it('reports a server that exits at start with its code and stderr', async () => {
    const conn = misbehaving('exit-at-start');
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'CONNECT_FAILED')).toBe(true);
    expect(error.message).toContain('code 3');
    expect(error.message).toContain('fatal: missing API key');
    expect(conn.state).toBe('disconnected');
  });

  it('skips non-JSON stdout lines and logs them', async () => {
    const logs: LogEntry[] = [];
    const conn = misbehaving('garbage-stdout', {}, logs);
    await conn.connect();
    expect((await conn.callTool('echo', { text: 'clean' })).text).toBe('clean');
    expect(logs.some((l) => l.source === 'stdout' && l.text.includes('garbage: this line is not JSON'))).toBe(
      true,
    );
  });

  it('captures stderr line by line', async () => {
    const logs: LogEntry[] = [];
    const conn = misbehaving('stderr-chatty', {}, logs);
    await conn.connect();
    const lines = logs.filter((l) => l.source === 'stderr').map((l) => l.text);
    expect(lines.slice(0, 3)).toEqual(['line one', 'line two', 'line three']);
  });

  it('kills a server that ignores SIGTERM, after the grace period', async () => {
    const conn = misbehaving('ignore-sigterm');
    await conn.connect();
    const pid = pidOf(conn);
    await conn.close();
    expect(await processesInGroup(pid)).toEqual([]);
  });

  it('leaves no grandchild behind', async () => {
    const logs: LogEntry[] = [];
    const conn = misbehaving('grandchild', {}, logs);
    await conn.connect();
    const pid = pidOf(conn);
    await expectEventually(() => logs.some((l) => l.text.startsWith('grandchild-pid')));
    expect((await processesInGroup(pid)).length).toBeGreaterThanOrEqual(2);
    await conn.close();
    expect(await processesInGroup(pid)).toEqual([]);
  });

  it('leaves no process behind when the server runs through sh -c', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({
        name: 'wrapped',
        command: 'sh',
        args: ['-c', `"${process.execPath}" "${misbehavingBin}" --mode grandchild; echo done`],
        protocol: 'legacy',
      }),
      eraStore: new MemoryEraVerdictStore(),
    });
    open.push(conn);
    await conn.connect();
    const pid = pidOf(conn);
    expect((await processesInGroup(pid)).length).toBeGreaterThanOrEqual(3);
    await conn.close();
    expect(await processesInGroup(pid)).toEqual([]);
  });

  it('kills the rest of the group when the leader dies on its own', async () => {
    const conn = misbehaving('grandchild');
    await conn.connect();
    const pid = pidOf(conn);
    await expectEventually(async () => (await processesInGroup(pid)).length >= 2);
    process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => conn.once('disconnected', resolve));
    await expectEventually(async () => (await processesInGroup(pid)).length === 0);
  });

  it('holds back sends while the server does not read, with one wait for all of them', async () => {
    // A server that reads nothing for a while, then answers each line with its length.
    const script = `
      setTimeout(() => {
        let rest = '';
        process.stdin.on('data', (chunk) => {
          rest += chunk;
          let at;
          while ((at = rest.indexOf('\\n')) >= 0) {
            const line = rest.slice(0, at);
            rest = rest.slice(at + 1);
            process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'got', params: { bytes: line.length } }) + '\\n');
          }
        });
      }, 300);`;
    const transport = new StdioTransport({
      command: process.execPath,
      args: ['-e', script],
      env: { PATH: process.env.PATH ?? '' },
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const got: unknown[] = [];
    transport.onmessage = (message) => got.push(message);
    try {
      await transport.start();
      const padding = 'x'.repeat(64 * 1024);
      const sends = Array.from({ length: 32 }, (_, i) =>
        transport.send({ jsonrpc: '2.0', method: 'note', params: { i, padding } }),
      );
      await Promise.all(sends);
      for (let i = 0; i < 200 && got.length < 32; i++) await new Promise((r) => setTimeout(r, 25));
      expect(got).toHaveLength(32);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await transport.close();
    }
  });

  it('receives a 20 MiB message', async () => {
    const conn = misbehaving('huge-message');
    await conn.connect();
    const r = await conn.callTool('huge', { mb: 20 });
    expect(r.text.length).toBe(20 * 1024 * 1024);
  });

  it('passes an allowlisted environment plus the interpolated entry env', async () => {
    const conn = misbehaving('stderr-chatty', {
      env: { API_TOKEN: '${SB_TEST_TOKEN}', MODE: '${SB_UNSET:-fallback}' },
    });
    await conn.connect();
    const r = await conn.callTool('env', { names: ['API_TOKEN', 'MODE', 'PATH', 'SB_TEST_TOKEN'] });
    const env = JSON.parse(r.text) as Record<string, string>;
    expect(env.API_TOKEN).toBe('tok-123');
    expect(env.MODE).toBe('fallback');
    expect(env.PATH).toBe(process.env.PATH);
    // The parent's variables are not passed on unless allowlisted.
    expect(env.SB_TEST_TOKEN).toBeUndefined();
  });

  it('refuses to start with an unset variable, naming it', async () => {
    const conn = misbehaving('stderr-chatty', { env: { API_TOKEN: '${SB_DEFINITELY_UNSET}' } });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'ENV_VAR_MISSING')).toBe(true);
    expect(error.message).toContain('SB_DEFINITELY_UNSET');
  });

  it('says what to do when the command does not exist', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'ghost', command: 'switchboard-no-such-binary' }),
      eraStore: new MemoryEraVerdictStore(),
    });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'SPAWN_FAILED')).toBe(true);
    expect(error.message).toMatch(/not found.*PATH/);
  });
});

async function expectEventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met within the time limit');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('closing while connecting', () => {
  it('leaves no process behind and rejects the connect', async () => {
    const logs: LogEntry[] = [];
    const conn = misbehaving('hang-init', { timeouts: { connect: 30 } }, logs);
    const connecting = conn.connect().catch((e) => e);
    await expectEventually(() => logs.some((l) => l.text.startsWith('started process')));
    const pid = Number(/(\d+)$/.exec(logs.find((l) => l.text.startsWith('started process'))!.text)![1]);
    await conn.close();
    const error = await connecting;
    expect(isSwitchboardError(error)).toBe(true);
    expect(conn.state).toBe('closed');
    await expectEventually(async () => (await processesInGroup(pid)).length === 0);
  });
});
