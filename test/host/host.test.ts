import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import type { ServerSnapshot } from '../../src/host/supervisor/supervisor.js';
import { openSqliteStore } from '../../src/storage/database.js';
import { kitchenSinkBin, misbehavingBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/** The Host end to end: real servers, a real SQLite store in a temp dir, restarts. */
let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-host-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

/** These tests are about routing, not approvals: calls go through without asking. */
const FULL_AUTO = { mode: 'full-auto' } as const;

const kitchen = normalizeServerEntry({
  name: 'kitchen',
  command: process.execPath,
  args: [kitchenSinkBin],
  protocol: 'legacy',
});

async function until(
  h: Host,
  predicate: (s: readonly ServerSnapshot[]) => boolean,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate(h.servers())) {
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(h.servers())}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Host', () => {
  it('connects configured servers, builds the catalog and routes calls through the hooks', async () => {
    host = await Host.create({ dataDir, governance: FULL_AUTO, servers: [kitchen] });
    await catalogHas(host, 'mcp__kitchen__echo');
    const seen: string[] = [];
    host.useHooks({
      before: (c) => void seen.push(`before ${c.server}/${c.tool}`),
      after: (c) => void seen.push(`after ${c.tool} ${c.error ? 'error' : 'ok'}`),
    });
    const r = await host.callTool('mcp__kitchen__echo', { text: 'routed' });
    expect(r.text).toBe('routed');
    expect(seen).toEqual(['before kitchen/echo', 'after echo ok']);
    await expect(host.callTool('mcp__kitchen__nope')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('No tool "mcp__kitchen__nope"'),
    });
    expect(() => host!.reload('nobody')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(host.catalog().prompts.map((p) => p.item.name)).toContain('greet');
  });

  it('lets a before-hook refuse a call before anything reaches the server', async () => {
    host = await Host.create({ dataDir, governance: FULL_AUTO, servers: [kitchen] });
    await catalogHas(host, 'mcp__kitchen__add_tool');
    const sessions: (string | undefined)[] = [];
    host.useHooks({
      before: (c) => {
        sessions.push(c.session);
        if (c.tool === 'add_tool') throw new Error('denied by policy');
      },
    });
    await expect(host.callTool('mcp__kitchen__add_tool', {}, { session: 's-1' })).rejects.toThrow(
      'denied by policy',
    );
    expect(sessions).toEqual(['s-1']);
    // Had it run, the server would list a dynamic tool now.
    expect(host.catalog().tools.some((t) => t.tool.name.startsWith('dynamic_'))).toBe(false);
  });

  it('keeps live registrations and toggles across a restart', async () => {
    host = await Host.create({ dataDir });
    await host.register({
      name: 'chatty',
      command: process.execPath,
      args: [misbehavingBin, '--mode', 'stderr-chatty'],
      protocol: 'legacy',
    });
    await until(host, (s) => s[0]?.state === 'connected');
    await host.close();

    host = await Host.create({ dataDir });
    expect(host.servers().map((s) => s.name)).toEqual(['chatty']);
    await until(host, (s) => s[0]?.state === 'connected');
    await host.setEnabled('chatty', false);
    await host.close();

    host = await Host.create({ dataDir });
    expect(host.servers()[0]).toMatchObject({ name: 'chatty', state: 'disabled' });
    await host.unregister('chatty');
    await host.close();
    host = await Host.create({ dataDir });
    expect(host.servers()).toEqual([]);
  });

  it('starts only the servers it is told to, registered ones included', async () => {
    host = await Host.create({ dataDir });
    await host.register({
      name: 'stored',
      command: process.execPath,
      args: [misbehavingBin, '--mode', 'stderr-chatty'],
      protocol: 'legacy',
    });
    await host.close();
    const filed = normalizeServerEntry({
      name: 'filed',
      command: process.execPath,
      args: [misbehavingBin, '--mode', 'stderr-chatty'],
      protocol: 'legacy',
    });
    host = await Host.create({ dataDir, servers: [filed], only: ['filed'] });
    expect(host.servers().map((s) => s.name)).toEqual(['filed']);
    await host.close();
    host = await Host.create({ dataDir, servers: [filed], only: ['stored'] });
    expect(host.servers().map((s) => s.name)).toEqual(['stored']);
  });

  it("remembers a file server's toggle as a flag only: the file's entry stays the truth", async () => {
    const fromFile = (trust: 'trusted' | 'untrusted') =>
      normalizeServerEntry({
        name: 'filed',
        command: process.execPath,
        args: [misbehavingBin, '--mode', 'stderr-chatty'],
        protocol: 'legacy',
        trust,
      });
    host = await Host.create({ dataDir, servers: [fromFile('untrusted')] });
    await host.setEnabled('filed', false);
    await host.close();
    // The file changed meanwhile: the new entry counts, with the stored toggle.
    host = await Host.create({ dataDir, servers: [fromFile('trusted')] });
    expect(host.servers()[0]).toMatchObject({ name: 'filed', state: 'disabled' });
    expect(host.serverConfig('filed')?.trust).toBe('trusted');
    await host.close();
    // The entry left the file: its toggle alone does not bring it back.
    host = await Host.create({ dataDir });
    expect(host.servers()).toEqual([]);
  });

  it("writes each server's log file, without its secrets", async () => {
    host = await Host.create({
      dataDir,
      servers: [
        normalizeServerEntry({
          name: 'chatty',
          command: process.execPath,
          args: [misbehavingBin, '--mode', 'stderr-chatty'],
          env: { API_TOKEN: 'line two' },
          protocol: 'legacy',
        }),
      ],
    });
    await until(host, (s) => s[0]?.state === 'connected');
    const text = await readFile(host.logFile('chatty'), 'utf8');
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[lifecycle\] started process \d+$/m);
    expect(text).toMatch(/\[stderr\] line one$/m);
    // The env value "line two" is a secret here: it never reaches the file.
    expect(text).not.toContain('line two');
    expect(text).toMatch(/\[stderr\] \*\*\*$/m);
  });

  it('persists server notifications as events for a consumer to take and acknowledge', async () => {
    host = await Host.create({ dataDir, governance: FULL_AUTO, servers: [kitchen] });
    await catalogHas(host, 'mcp__kitchen__notify');
    await host.callTool('mcp__kitchen__notify', {
      method: 'event/new_email',
      params: { from: 'ada@example.com' },
    });
    let events = await host.takeEvents();
    for (let i = 0; i < 50 && events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      events = await host.takeEvents();
    }
    expect(events.map((e) => [e.server, e.method, e.params])).toEqual([
      ['kitchen', 'event/new_email', { from: 'ada@example.com' }],
    ]);
    expect(await host.ackEvents(events.map((e) => e.id))).toBe(1);
    expect(await host.takeEvents()).toEqual([]);
  });

  it('remembers protocol verdicts across restarts', async () => {
    const auto = normalizeServerEntry({
      name: 'auto',
      command: process.execPath,
      args: [kitchenSinkBin, '--era', 'legacy'],
    });
    host = await Host.create({ dataDir, servers: [auto] });
    await until(host, (s) => s[0]?.state === 'connected');
    await host.close();
    host = undefined;
    const store = await openSqliteStore({ file: join(dataDir, 'switchboard.db') });
    const verdicts = await store.kv.list('era-verdict');
    await store.close();
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]!.value).toMatchObject({ kind: 'legacy' });
    host = await Host.create({ dataDir, servers: [auto] });
    await until(host, (s) => s[0]?.state === 'connected');
    expect(host.servers()[0]!.protocolVersion).toBe('2025-11-25');
  });
});

describe('Host when a server dies mid-call', () => {
  it('fails the call at once (not at its timeout), drops its tools, and brings it back', async () => {
    host = await Host.create({
      dataDir,
      governance: FULL_AUTO,
      servers: [kitchen],
      firstConnectDelaysMs: [20],
    });
    await catalogHas(host, 'mcp__kitchen__slow');
    const log = await readFile(host.logFile('kitchen'), 'utf8');
    const pid = Number(/started process (\d+)/.exec(log)![1]);
    let killedAt = 0;
    const error = await host
      .callTool(
        'mcp__kitchen__slow',
        { ms: 30_000 },
        {
          timeoutMs: 20_000,
          onProgress: () => {
            killedAt = performance.now();
            process.kill(pid, 'SIGKILL');
          },
        },
      )
      .then(
        () => ({ code: 'resolved' }),
        (e: Error & { code?: string }) => e,
      );
    const failedAfter = performance.now() - killedAt;
    expect(error.code).toBe('UPSTREAM_DISCONNECTED');
    // Typically a few ms; the bound only has to tell "at once" from "at the 20 s timeout" on a
    // loaded machine (speed itself is for benchmarks, not unit tests).
    expect(failedAfter).toBeLessThan(5_000);
    // Its tools leave the catalog while it is away, and come back with it.
    await until(host, (s) => s[0]?.state !== 'connected');
    const deadline = Date.now() + 5000;
    while (host.catalog().lookup('mcp__kitchen__slow') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(host.catalog().lookup('mcp__kitchen__slow')).toBeUndefined();
    await catalogHas(host, 'mcp__kitchen__slow');
    expect((await host.callTool('mcp__kitchen__echo', { text: 'back' })).text).toBe('back');
  });
});

describe('Host media', () => {
  it('saves media of a result, references it by URL, and serves it back', async () => {
    host = await Host.create({
      dataDir,
      governance: FULL_AUTO,
      servers: [kitchen],
      mediaBaseUrl: 'http://127.0.0.1:1/media',
    });
    await catalogHas(host, 'mcp__kitchen__image');
    const rendered = await host.renderResult(await host.callTool('mcp__kitchen__image', {}));
    expect(rendered.text).toContain('an image');
    const ref = rendered.media[0]!;
    expect(rendered.text).toContain(`(http://127.0.0.1:1/media/${ref.fileName})`);
    expect(ref.fileName).toMatch(/^[A-Za-z0-9_-]{22}\.png$/);
    const served = await host.mediaHandler()(new Request(`http://127.0.0.1:1/media/${ref.fileName}`));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await served.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const refused = await host.mediaHandler()(new Request('http://127.0.0.1:1/media/..%2Fswitchboard.db'));
    expect(refused.status).toBe(400);
  });
});

describe('Host server updates', () => {
  it('yields the list now and after each change, until aborted', async () => {
    host = await Host.create({ dataDir, governance: FULL_AUTO, servers: [kitchen] });
    const controller = new AbortController();
    const states: string[] = [];
    for await (const servers of host.serverUpdates(controller.signal)) {
      states.push(servers[0]!.state);
      if (servers[0]!.state === 'connected') controller.abort();
    }
    expect(states[0]).toBe('connecting');
    expect(states.at(-1)).toBe('connected');
  });
});
