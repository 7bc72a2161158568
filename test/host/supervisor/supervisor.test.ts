import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { isSwitchboardError, SwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../../src/core/server-config.js';
import { type ServerSnapshot, Supervisor } from '../../../src/host/supervisor/supervisor.js';
import { kitchenSinkBin, misbehavingBin } from '../../fixtures/paths.js';
import { processesInGroup } from '../../helpers/servers.js';

/** The supervisor against real fixture servers: parallel start, failures, drops, toggles. */
const logs: LogEntry[] = [];
let supervisor: Supervisor | undefined;

function make(): Supervisor {
  supervisor = new Supervisor({
    connection: { eraStore: new MemoryEraVerdictStore(), onLog: (e) => logs.push(e) },
    firstConnectDelaysMs: [20, 40],
    runtimeBackoff: { baseMs: 20, capMs: 100 },
  });
  return supervisor;
}

const kitchen = (name: string, extra: Partial<RawServerEntry> = {}) =>
  normalizeServerEntry({
    name,
    command: process.execPath,
    args: [kitchenSinkBin],
    protocol: 'legacy',
    ...extra,
  });
const misbehaving = (name: string, mode: string) =>
  normalizeServerEntry({
    name,
    command: process.execPath,
    args: [misbehavingBin, '--mode', mode],
    protocol: 'legacy',
  });

function pidsOf(server: string): number[] {
  return logs
    .filter((l) => l.server === server && l.text.startsWith('started process'))
    .map((l) => Number(/(\d+)$/.exec(l.text)![1]));
}

async function until(
  s: Supervisor,
  predicate: (snaps: readonly ServerSnapshot[]) => boolean,
  timeoutMs = 15_000,
) {
  if (predicate(s.snapshot())) return s.snapshot();
  return new Promise<readonly ServerSnapshot[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      s.off('servers', check);
      reject(new Error(`condition not met: ${JSON.stringify(s.snapshot())}`));
    }, timeoutMs);
    const check = (snaps: readonly ServerSnapshot[]) => {
      if (!predicate(snaps)) return;
      clearTimeout(timer);
      s.off('servers', check);
      resolve(snaps);
    };
    s.on('servers', check);
  });
}

afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
  logs.length = 0;
});

describe('Supervisor', () => {
  it('starts 20 servers in parallel without blocking, and connects them all', async () => {
    const s = make();
    const names = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const t0 = Date.now();
    s.start(names.map((n) => kitchen(n)));
    expect(Date.now() - t0).toBeLessThan(200);
    expect(s.snapshot().every((snap) => snap.state === 'connecting')).toBe(true);
    const snaps = await until(s, (all) => all.every((snap) => snap.state === 'connected'), 60_000);
    expect(snaps.map((x) => x.name)).toEqual(names);
    expect(snaps[0]).toMatchObject({ transport: 'stdio', protocolVersion: '2025-11-25', prompts: 1 });
    expect(snaps[0]!.tools).toBeGreaterThan(10);
  }, 90_000);

  it('gives up on a server that cannot start, says why, and leaves no process', async () => {
    const s = make();
    s.start([misbehaving('broken', 'exit-at-start'), kitchen('fine')]);
    const snaps = await until(s, (all) => all.find((x) => x.name === 'broken')?.state === 'failed');
    const broken = snaps.find((x) => x.name === 'broken')!;
    expect(broken.error?.code).toBe('CONNECT_FAILED');
    expect(broken.error?.message).toContain('fatal: missing API key');
    expect(pidsOf('broken')).toHaveLength(3); // the first try and two retries, each a fresh process
    for (const pid of pidsOf('broken')) expect(await processesInGroup(pid)).toEqual([]);
    await until(s, (all) => all.find((x) => x.name === 'fine')?.state === 'connected');
  });

  it('fails at once, without retries, when the entry itself is wrong', async () => {
    const s = make();
    s.start([normalizeServerEntry({ name: 'ghost', command: 'switchboard-no-such-binary' })]);
    const snaps = await until(s, (all) => all[0]?.state === 'failed');
    expect(snaps[0]!.error?.code).toBe('SPAWN_FAILED');
  });

  it('shows the lists a server cut short in its snapshot, and no such mark for complete ones', async () => {
    const s = make();
    s.start([
      misbehaving('loopy', 'pages-cursor-cycle'),
      misbehaving('endless', 'pages-endless'),
      kitchen('fine'),
    ]);
    const snaps = await until(
      s,
      (all) => all.every((x) => x.state === 'connected') && all.filter((x) => x.incompleteLists).length === 2,
    );
    const byName = new Map(snaps.map((x) => [x.name, x]));
    expect(byName.get('loopy')?.incompleteLists).toEqual([
      { kind: 'tools', reason: 'cursor-loop', pages: 3, items: 9 },
    ]);
    expect(byName.get('loopy')?.tools).toBe(9);
    expect(byName.get('endless')?.incompleteLists).toEqual([
      { kind: 'tools', reason: 'page-cap', pages: 50, items: 56 },
    ]);
    expect(byName.get('fine')).not.toHaveProperty('incompleteLists');
  });

  it('reconnects a server that drops, failing its pending call at once', async () => {
    const s = make();
    s.start([misbehaving('crashy', 'crash-mid-call')]);
    await until(s, (all) => all[0]?.state === 'connected');
    const first = s.connection('crashy')!;
    const seen: string[] = [];
    s.on('servers', (all) => seen.push(`${all[0]!.state}:${all[0]!.tools}`));
    const error = await first.callTool('crash', {}).catch((e) => e);
    expect(isSwitchboardError(error, 'UPSTREAM_DISCONNECTED')).toBe(true);
    await until(s, (all) => all[0]?.state === 'connected' && s.connection('crashy') !== first);
    // While it was away its tools left the catalog.
    expect(seen).toContain('reconnecting:0');
    expect((await s.connection('crashy')!.callTool('echo', { text: 'back' })).text).toBe('back');
    expect(pidsOf('crashy')).toHaveLength(2);
  });

  it('disables, enables, reloads and removes servers, closing what it started', async () => {
    const s = make();
    s.start([kitchen('a')]);
    await until(s, (all) => all[0]?.state === 'connected');
    const [pid] = pidsOf('a');
    await s.setEnabled('a', false);
    expect(s.snapshot()[0]).toMatchObject({ state: 'disabled', tools: 0 });
    expect(await processesInGroup(pid!)).toEqual([]);
    await s.setEnabled('a', true);
    await until(s, (all) => all[0]?.state === 'connected');
    s.reload('a', kitchen('a', { protocol: 'modern' }));
    await until(s, (all) => all[0]?.state === 'connected' && all[0].protocolVersion === '2026-07-28');
    await s.remove('a');
    expect(s.snapshot()).toEqual([]);
    for (const p of pidsOf('a')) expect(await processesInGroup(p)).toEqual([]);
  });

  it('marks a server that answers 401 as needing authentication', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="test"' }).end('unauthorized');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const s = make();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      s.start([normalizeServerEntry({ name: 'locked', url, protocol: 'legacy' })]);
      const snaps = await until(s, (all) => all[0]?.state === 'needs_auth');
      expect(snaps[0]!.error?.message).toMatch(/401/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('Supervisor: a held server', () => {
  it('is failed with its error, never connects, follows enable/disable, and is replaced by add', async () => {
    const s = make();
    const error = new SwitchboardError(
      'CONFIG_INVALID',
      'f.json: server "bad", field "comand": unknown field.',
    );
    s.hold('bad', error, { transport: 'http' });
    expect(s.snapshot()).toEqual([
      {
        name: 'bad',
        transport: 'http',
        state: 'failed',
        tools: 0,
        resources: 0,
        prompts: 0,
        error: { code: 'CONFIG_INVALID', message: error.message },
      },
    ]);
    s.reload('bad');
    await s.setEnabled('bad', false);
    expect(s.snapshot()[0]?.state).toBe('disabled');
    await s.setEnabled('bad', true);
    expect(s.snapshot()[0]).toMatchObject({ state: 'failed', error: { code: 'CONFIG_INVALID' } });
    expect(s.connection('bad')).toBeUndefined();
    expect(logs.filter((l) => l.server === 'bad')).toEqual([]);
    // Fixed: the same name with a valid config connects.
    s.add(kitchen('bad'));
    await until(s, (snaps) => snaps[0]?.state === 'connected');
    expect(s.snapshot()[0]?.error).toBeUndefined();
  });
});
