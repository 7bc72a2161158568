import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { killAll, put, runCli } from '../cli/manage-cli.js';
import { misbehavingBin } from '../fixtures/paths.js';
import { type ApiUnderTest, startApiUnderTest } from '../gateway/api/api-harness.js';
import { eventually } from '../helpers/wait.js';

/**
 * A server's status counts only the tools the catalog serves. The fixture server lists six
 * tools, three of which the injection scanner refuses (`weather`, `notes`, `mailer`); another
 * lists only those three. Everywhere the status is shown — `host.servers()`, `/api/servers`
 * (which the dashboard reads), `switchboard list` and `status` — the first serves 3 tools and
 * the second none, each refused tool is named with its reason, and each is logged once.
 */
const poisoned = (name: string, mode: 'poisoned-tools' | 'poisoned-only') => ({
  name,
  command: process.execPath,
  args: [misbehavingBin, '--mode', mode],
});
const POISONED = ['mailer', 'notes', 'weather'];

const settled = (host: ApiUnderTest['host'], names: readonly string[]) =>
  eventually(
    () => host.servers(),
    (servers) =>
      names.every((n) => {
        const s = servers.find((x) => x.name === n);
        return s?.state === 'connected' && s.rejectedTools.length === 3;
      }),
    { what: `saw the refused tools of ${names.join(', ')}` },
  );
const refused = (status: { rejectedTools: readonly { tool: string; reason: string }[] } | undefined) =>
  status?.rejectedTools.map((r) => [r.tool, r.reason]).sort();

describe('with the scanner blocking', () => {
  let under: ApiUnderTest;
  beforeAll(async () => {
    under = await startApiUnderTest({
      servers: [poisoned('poisoned', 'poisoned-tools'), poisoned('allbad', 'poisoned-only')],
      ready: ['mcp__poisoned__echo'],
    });
    await settled(under.host, ['poisoned', 'allbad']);
  }, 60_000);
  afterAll(async () => {
    await under?.close();
  });

  it('host.servers() counts the served tools and names the refused ones', () => {
    const byName = new Map(under.host.servers().map((s) => [s.name, s] as const));
    const expected = POISONED.map((t) => [t, 'injection_suspected']);
    expect(byName.get('poisoned')).toMatchObject({ tools: 3, toolsListed: 6 });
    expect(refused(byName.get('poisoned'))).toEqual(expected);
    // Every tool refused: nothing offered changed, and the refusals still reach the status.
    expect(byName.get('allbad')).toMatchObject({ tools: 0, toolsListed: 3 });
    expect(refused(byName.get('allbad'))).toEqual(expected);
    const served = under.host.catalog().tools.filter((t) => t.server === 'poisoned');
    expect(served.map((t) => t.tool.name).sort()).toEqual(['echo', 'env', 'pid']);
  });

  it('/api/servers shows the same', async () => {
    const { servers } = await under.api.json<{ servers: ApiServer[] }>('/api/servers');
    const poisonedServer = servers.find((s) => s.name === 'poisoned');
    expect(poisonedServer?.tools).toBe(3);
    expect(refused(poisonedServer)).toEqual(POISONED.map((t) => [t, 'injection_suspected']));
    expect(poisonedServer?.rejectedTools[0]?.detail).toMatch(/^rejected: /);
    expect(servers.find((s) => s.name === 'allbad')?.tools).toBe(0);
  });

  it('logs each refusal once, also across later rebuilds of the catalog', async () => {
    const lines = async () =>
      (await readFile(under.host.logFile('poisoned'), 'utf8').catch(() => '')).split('\n');
    const refusals = (all: string[]) =>
      POISONED.map((t) => all.filter((l) => l.includes(`tool ${t}: rejected`)));
    await eventually(lines, (all) => refusals(all).every((r) => r.length > 0), {
      what: 'logged the refusals',
    });
    // Another server reconnecting rebuilds the catalog (twice: its refusals go, then come
    // back); poisoned's verdicts are not new and are not logged again.
    let published = 0;
    const count = () => published++;
    under.host.on('catalog', count);
    try {
      under.host.reload('allbad');
      await eventually(
        () => published,
        (n) => n >= 2,
        { what: 'saw the catalog rebuilt after the reload' },
      );
      await settled(under.host, ['allbad']);
    } finally {
      under.host.off('catalog', count);
    }
    expect(refusals(await lines()).map((r) => r.length)).toEqual([1, 1, 1]);
  });
});

describe('with the scanner warning', () => {
  let under: ApiUnderTest;
  beforeAll(async () => {
    under = await startApiUnderTest({
      servers: [poisoned('poisoned', 'poisoned-tools')],
      ready: ['mcp__poisoned__weather'],
      host: { governance: { scan: 'warn' } },
    });
  }, 60_000);
  afterAll(async () => {
    await under?.close();
  });

  it('serves and counts every tool, refuses none, and warns about the three', async () => {
    const status = await eventually(
      () => under.host.servers().find((s) => s.name === 'poisoned'),
      (s) => s?.tools === 6,
      { what: 'saw all six tools served' },
    );
    expect(status?.rejectedTools).toEqual([]);
    expect(
      under.host
        .catalog()
        .warnings.map((w) => w.tool)
        .sort(),
    ).toEqual(POISONED);
  });
});

describe('the CLI', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sb-served-'));
  });
  afterAll(async () => {
    killAll();
    await rm(root, { recursive: true, force: true });
  });

  it('list and status count only served tools and name the refused ones', async () => {
    const place = { project: join(root, 'project'), data: join(root, 'data'), home: join(root, 'home') };
    const { name: _name, ...entry } = poisoned('poisoned', 'poisoned-tools');
    await put(join(place.project, 'switchboard.json'), { servers: { poisoned: entry } });
    await put(join(place.home, '.keep'), '');
    const [list, status] = await Promise.all([
      runCli(place, '--json', 'list'),
      runCli(place, '--json', 'status', 'poisoned'),
    ]);
    expect(list.code, list.err.join('\n')).toBe(0);
    expect(JSON.parse(list.out[0]!).servers[0]).toMatchObject({ name: 'poisoned', tools: 3 });
    expect(status.code, status.err.join('\n')).toBe(0);
    const detail = JSON.parse(status.out[0]!).servers[0];
    expect(detail).toMatchObject({ tools: 3, offers: { tools: ['echo', 'env', 'pid'] } });
    expect(refused(detail)).toEqual(POISONED.map((t) => [t, 'injection_suspected']));
  }, 60_000);
});
