import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore, serverIdentity } from '../../src/client/era.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../src/core/server-config.js';
import { startMisbehavingHttp } from '../fixtures/misbehaving-http.js';
import { kitchenSinkBin, misbehavingBin } from '../fixtures/paths.js';

/** Era negotiation over stdio: auto probes in place (one spawn), pins, and refusals. */
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connect(entry: Partial<RawServerEntry>, store = new MemoryEraVerdictStore()) {
  const logs: LogEntry[] = [];
  const conn = new Connection({
    config: normalizeServerEntry({
      name: 'neg',
      command: process.execPath,
      args: [kitchenSinkBin],
      ...entry,
    }),
    eraStore: store,
    onLog: (e) => logs.push(e),
  });
  open.push(conn);
  const spawns = () => logs.filter((l) => l.text.startsWith('started process')).length;
  return { conn, logs, spawns };
}

/**
 * A hand-written legacy server that answers `initialize` with `version` and exits on any other
 * request before it — the shape of servers built on SDKs that die on `server/discover`.
 */
function rawServer(version: string, exitOnDiscover: boolean): string[] {
  const code = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: ${JSON.stringify(version)}, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
      else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [] } });
      else if (m.id !== undefined && ${exitOnDiscover}) process.exit(1);
      else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
    });`;
  return ['-e', code];
}

describe('era negotiation over stdio', () => {
  it('auto selects 2026-07-28 from a server that speaks both, with one spawn', async () => {
    const { conn, spawns } = connect({});
    await conn.connect();
    expect(conn.protocolVersion).toBe('2026-07-28');
    expect(spawns()).toBe(1);
  });

  it('auto falls back to initialize on a legacy-only server, in place, with one spawn', async () => {
    const { conn, spawns } = connect({ args: [kitchenSinkBin, '--era', 'legacy'] });
    await conn.connect();
    expect(conn.protocolVersion).toBe('2025-11-25');
    expect(spawns()).toBe(1);
  });

  it('a cached verdict skips the probe on the next connect', async () => {
    const store = new MemoryEraVerdictStore();
    const first = connect({ args: [kitchenSinkBin, '--era', 'legacy'] }, store);
    await first.conn.connect();
    await first.conn.close();
    const second = connect({ args: [kitchenSinkBin, '--era', 'legacy'] }, store);
    await second.conn.connect();
    expect(second.conn.era).toBe('legacy');
    expect(second.logs.some((l) => l.text.includes('retrying'))).toBe(false);
  });

  it('respawns once with initialize when a legacy server exits on server/discover', async () => {
    const { conn, spawns } = connect({ args: rawServer('2025-06-18', true) });
    await conn.connect();
    expect(conn.protocolVersion).toBe('2025-06-18');
    expect(spawns()).toBe(2);
  });

  it('pins a legacy revision', async () => {
    const { conn } = connect({ protocol: '2025-03-26' });
    await conn.connect();
    expect(conn.protocolVersion).toBe('2025-03-26');
  });

  it('refuses a server that offers a revision we do not speak, naming both', async () => {
    const { conn } = connect({ args: rawServer('1999-01-01', false), protocol: 'legacy' });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'PROTOCOL_VERSION_UNSUPPORTED')).toBe(true);
    expect(error.message).toContain('1999-01-01');
    expect(error.message).toContain('2025-11-25');
  });

  it('refuses a modern pin against a legacy-only server', async () => {
    const { conn } = connect({ args: [kitchenSinkBin, '--era', 'legacy'], protocol: 'modern' });
    const error = await conn.connect().catch((e) => e);
    expect(isSwitchboardError(error, 'PROTOCOL_VERSION_UNSUPPORTED')).toBe(true);
    expect(error.message).toContain('2026-07-28');
    expect(error.message).toMatch(/"auto" or "legacy"/);
    expect(conn.state).toBe('disconnected');
  });
});

/**
 * What a connect remembers of a server's era: only an answer to the probe. A probe that timed
 * out (a slow first start) or a server that exited on it teaches nothing, and the next connect
 * probes again; a connect from a remembered verdict does not make it younger.
 */
describe('era verdicts', () => {
  function raw(
    mode: string,
    extra: Partial<RawServerEntry>,
    store: MemoryEraVerdictStore,
    probeTimeoutMs?: number,
  ) {
    const logs: LogEntry[] = [];
    const config = normalizeServerEntry({
      name: 'verdict',
      command: process.execPath,
      args: [misbehavingBin, '--mode', mode],
      ...extra,
    });
    const conn = new Connection({
      config,
      eraStore: store,
      onLog: (e) => logs.push(e),
      ...(probeTimeoutMs !== undefined && { probeTimeoutMs }),
    });
    open.push(conn);
    const identity = serverIdentity(config.transport);
    return {
      conn,
      logs,
      identity,
      spawns: () => logs.filter((l) => l.text.startsWith('started process')).length,
    };
  }

  it('remembers nothing when the probe timed out, and probes again on the next connect', async () => {
    const store = new MemoryEraVerdictStore();
    // The server reads nothing for 1.5 s: a 300 ms probe cannot be answered in time.
    const slow = raw('slow-start', { env: { MISBEHAVING_DELAY_MS: '1500' } }, store, 300);
    await slow.conn.connect();
    expect(slow.conn.era).toBe('legacy');
    expect(store.get(slow.identity)).toBeUndefined();
    expect(slow.logs.some((l) => l.text.includes('server/discover got no answer'))).toBe(true);
    await slow.conn.close();
    // Started fast, the same server (same command line) answers the probe: it speaks 2026-07-28.
    const fast = raw('slow-start', { env: { MISBEHAVING_DELAY_MS: '0' } }, store);
    await fast.conn.connect();
    expect(fast.conn.era).toBe('modern');
    expect(store.get(fast.identity)?.kind).toBe('modern');
  });

  it('remembers nothing when the server exited on the probe (the restart goes straight to initialize)', async () => {
    const store = new MemoryEraVerdictStore();
    const first = raw('exit-on-discover', {}, store);
    await first.conn.connect();
    expect(first.conn.era).toBe('legacy');
    expect(first.spawns()).toBe(2);
    expect(store.get(first.identity)).toBeUndefined();
    await first.conn.close();
    const second = raw('exit-on-discover', {}, store);
    await second.conn.connect();
    expect(second.spawns()).toBe(2);
  });

  it('remembers an answer (-32601), and a connect from it leaves its time as it was', async () => {
    const store = new MemoryEraVerdictStore();
    const first = raw('malformed-answers', {}, store);
    await first.conn.connect();
    const verdict = store.get(first.identity);
    expect(verdict?.kind).toBe('legacy');
    await first.conn.close();
    const second = raw('malformed-answers', {}, store);
    await second.conn.connect();
    expect(second.conn.era).toBe('legacy');
    expect(store.get(second.identity)).toBe(verdict);
  });
});

describe.each([
  ['a JSON-RPC -32601', { legacyOnly: true }],
  ['HTTP 404', { discoverStatus: 404 }],
  ['HTTP 405', { discoverStatus: 405 }],
] as const)('era verdicts over HTTP (server/discover answered with %s)', (_, answer) => {
  it('remembers the legacy answer', async () => {
    const server = await startMisbehavingHttp({ mode: 'json', ...answer });
    try {
      const store = new MemoryEraVerdictStore();
      const config = normalizeServerEntry({ name: 'verdict', url: server.url });
      const conn = new Connection({ config, eraStore: store });
      open.push(conn);
      await conn.connect();
      expect(conn.era).toBe('legacy');
      expect(store.get(serverIdentity(config.transport))?.kind).toBe('legacy');
    } finally {
      await server.close();
    }
  });
});

describe.each([500, 502, 503])('auto over HTTP when server/discover gets HTTP %i', (status) => {
  it('falls back to initialize once and remembers the legacy verdict', async () => {
    const server = await startMisbehavingHttp({ mode: 'json', discoverStatus: status });
    try {
      const store = new MemoryEraVerdictStore();
      const logs: LogEntry[] = [];
      const config = normalizeServerEntry({ name: 'five', url: server.url });
      const first = new Connection({ config, eraStore: store, onLog: (e) => logs.push(e) });
      open.push(first);
      await first.connect();
      expect(first.era).toBe('legacy');
      expect(server.requests['server/discover']).toBe(1);
      expect(server.requests.initialize).toBe(1);
      expect(logs.some((l) => l.text.includes(`HTTP ${status}`) && l.text.includes('initialize'))).toBe(true);
      expect(store.get(serverIdentity(config.transport))?.kind).toBe('legacy');
      // The verdict holds: the next connect goes straight to initialize, with no probe.
      const second = new Connection({ config, eraStore: store });
      open.push(second);
      await second.connect();
      expect(second.era).toBe('legacy');
      expect(server.requests['server/discover']).toBe(1);
      expect(server.requests.initialize).toBe(2);
    } finally {
      await server.close();
    }
  });
});
