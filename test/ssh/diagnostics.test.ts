import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { hostname, release } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SysInfo } from '../../examples/servers/ssh/sysinfo.js';
import { type FakeSystemd, fakeSystemdDir, makeFakeSystemd } from './fake-systemd.js';
import { makeWorld } from './ssh-client.js';
import { SECURE_PATH, SUDO, startSshd } from './sshd-fixture.js';
import { sshSuite } from './suite.js';

/**
 * sysinfo against the real sshd (the "remote" host is this machine, so its answers are checked
 * against what this process sees), and systemd. The test sshd runs in a container whose PID 1
 * is not systemd, so systemctl and journalctl are fakes (fake-systemd.ts) put first on every
 * session's PATH and on sudo's: they record the user and the exact arguments of each call,
 * which is what these tests check — the commands, the quoting, sudo — not systemd itself.
 */
const fakeDir = fakeSystemdDir();
let fake: FakeSystemd;
beforeAll(async () => {
  fake = await makeFakeSystemd(fakeDir);
  await fake.addUnit('nginx.service', {
    active: 'active',
    enabled: 'enabled',
    description: 'Web server',
    journal: [
      '2026-01-01T10:00:00+0000 web nginx[1]: started',
      '2026-01-01T10:00:01+0000 web nginx[1]: ready',
    ],
  });
  await fake.addUnit('web-worker@1.service', {
    active: 'inactive',
    enabled: 'disabled',
    description: 'Worker 1',
  });
  await fake.addUnit('broken.service', {
    active: 'inactive',
    enabled: 'enabled',
    description: 'Broken',
    fails: true,
  });
});
afterAll(async () => {
  await fake?.remove();
});
const suite = sshSuite({ path: `${join(fakeDir, 'bin')}:${SECURE_PATH}` });

describe('sysinfo', () => {
  it('reports this host as this process sees it', async () => {
    const { client } = await suite.setup();
    const result = await client.call('sysinfo', { alias: 'me' });
    expect(result.isError, result.text).toBe(false);
    const info = result.structured as unknown as SysInfo &
      Required<Pick<SysInfo, 'cpu' | 'memory' | 'disks'>>;
    expect(info.hostname).toBe(hostname());
    expect(info.kernel).toMatchObject({ name: 'Linux', release: release() });
    expect(info.cpu.count).toBe(Number(execFileSync('nproc').toString()));
    const memTotal = /MemTotal:\s+(\d+)/.exec(await readFile('/proc/meminfo', 'utf8'))![1];
    expect(info.memory.total_bytes).toBe(Number(memTotal) * 1024);
    expect(info.uptime_seconds).toBeGreaterThan(0);
    expect(info.load).toHaveLength(3);
    expect(info.disks.map((d) => d.mount)).toContain('/');
    expect(info.missing).toEqual([]);
    expect(result.text).toMatch(/^host {4}/);
    expect(result.text).toMatch(/\nmemory {2}.* used of /);
  });
});

describe('systemd (fake systemctl and journalctl)', () => {
  it('shows a unit with its journal tail, lists units, reads the journal: as the login user, arguments exact', async () => {
    const { client } = await suite.setup();
    await fake.clearCalls();
    const status = await client.call('systemd', { alias: 'me', action: 'status', unit: 'nginx.service' });
    expect(status.isError, status.text).toBe(false);
    expect(status.text.split('\n').slice(0, 2)).toEqual([
      'nginx.service — Web server',
      'state    active (running) · main PID 4242',
    ]);
    expect(status.text).toContain(
      '--- journal (last 10 lines) ---\n2026-01-01T10:00:00+0000 web nginx[1]: started',
    );
    const [show, tail] = await fake.calls();
    expect(show).toEqual({
      program: 'systemctl',
      user: 'root',
      args: [
        'show',
        '--no-pager',
        '--property=Id,Description,LoadState,ActiveState,SubState,UnitFileState,MainPID,ActiveEnterTimestamp,Result,NRestarts,MemoryCurrent,FragmentPath',
        '--',
        'nginx.service',
      ],
    });
    expect(tail?.args).toEqual(['--no-pager', '--output=short-iso', '--lines=10', '--unit=nginx.service']);

    const list = await client.call('systemd', { alias: 'me', action: 'list', pattern: 'web*' });
    expect(list.structured?.units).toEqual([
      {
        unit: 'web-worker@1.service',
        load: 'loaded',
        active: 'inactive',
        sub: 'dead',
        description: 'Worker 1',
      },
    ]);
    const active = await client.call('systemd', {
      alias: 'me',
      action: 'list',
      state: 'active',
      type: 'all',
    });
    expect((active.structured?.units as { unit: string }[] | undefined)?.map((u) => u.unit)).toEqual([
      'nginx.service',
    ]);

    await fake.clearCalls();
    const journal = await client.call('systemd', {
      alias: 'me',
      action: 'journal',
      unit: 'nginx.service',
      lines: 1,
      since: '-1h',
      priority: 'err',
    });
    expect(journal.text.split('\n')[0]).toBe('2026-01-01T10:00:01+0000 web nginx[1]: ready');
    expect((await fake.calls())[0]?.args).toEqual([
      '--no-pager',
      '--output=short-iso',
      '--lines=1',
      '--unit=nginx.service',
      '--since=-1h',
      '--priority=err',
    ]);
    const missing = await client.call('systemd', { alias: 'me', action: 'status', unit: 'nope.service' });
    expect(missing.structured?.error).toBe('NOT_FOUND');
  });

  it('changes units (a root login needs no sudo) and reports failures with their message', async () => {
    const { client } = await suite.setup();
    await fake.clearCalls();
    const stop = await client.call('systemd', { alias: 'me', action: 'stop', unit: 'nginx.service' });
    expect(stop.isError, stop.text).toBe(false);
    expect(stop.text.split('\n')[0]).toBe('stop nginx.service: done.');
    expect(stop.text).toContain('state    inactive (dead)');
    expect(await fake.unitState('nginx.service')).toEqual({ active: 'inactive', enabled: 'enabled' });
    expect((await fake.calls())[0]).toEqual({
      program: 'systemctl',
      user: 'root',
      args: ['stop', '--', 'nginx.service'],
    });
    await client.call('systemd', { alias: 'me', action: 'start', unit: 'nginx.service' });
    await client.call('systemd', { alias: 'me', action: 'disable', unit: 'nginx' });
    expect(await fake.unitState('nginx.service')).toEqual({ active: 'active', enabled: 'enabled' });

    const broken = await client.call('systemd', { alias: 'me', action: 'restart', unit: 'broken.service' });
    expect(broken.structured?.error).toBe('COMMAND_FAILED');
    expect(broken.text).toContain('exit 1');
    expect(broken.text).toContain('Job for broken.service failed');
    const unknown = await client.call('systemd', { alias: 'me', action: 'start', unit: 'ghost.service' });
    expect(unknown.structured?.error).toBe('COMMAND_FAILED');
    expect(unknown.text).toContain('Unit ghost.service not found');
  });

  it('refuses hostile unit names, patterns and times before anything runs on the host', async () => {
    const { client } = await suite.setup();
    await fake.clearCalls();
    const canary = join(suite.sshd.dir, 'pwned');
    const hostile = [
      `nginx; touch ${canary}`,
      `$(touch ${canary})`,
      `\`touch ${canary}\``,
      '-h',
      '--help',
      'a b',
      'a\nb',
      '../etc/passwd',
      "x'y",
      'x"y',
      '.hidden',
      `${'x'.repeat(254)};`,
    ];
    for (const unit of hostile) {
      const r = await client.call('systemd', { alias: 'me', action: 'restart', unit });
      expect(r.structured?.error, unit).toBe('INVALID_ARGUMENT');
    }
    for (const pattern of [`*; touch ${canary}`, '-x*', '$(id)'])
      expect((await client.call('systemd', { alias: 'me', action: 'list', pattern })).structured?.error).toBe(
        'INVALID_ARGUMENT',
      );
    for (const since of [`1h; touch ${canary}`, '$(id)', "'"])
      expect(
        (await client.call('systemd', { alias: 'me', action: 'journal', unit: 'nginx.service', since }))
          .structured?.error,
      ).toBe('INVALID_ARGUMENT');
    // Longer than systemd allows: the input schema refuses it.
    expect(
      (await client.call('systemd', { alias: 'me', action: 'start', unit: 'x'.repeat(256) })).isError,
    ).toBe(true);
    expect(await fake.calls()).toEqual([]);
    // Odd but valid names reach systemctl as one argument, byte for byte.
    await fake.clearCalls();
    const odd = 'dev-disk-by\\x2dlabel-data:1.mount';
    await client.call('systemd', { alias: 'me', action: 'status', unit: odd });
    expect((await fake.calls())[0]?.args.at(-1)).toBe(odd);
    expect(execFileSync('sh', ['-c', `test -e '${canary}' && echo yes || echo no`]).toString()).toBe('no\n');
  });

  it("runs changes through sudo in the alias's mode for a login that is not root, and reads as that user", async (ctx) => {
    const { sshd } = suite;
    if (SUDO === undefined) return ctx.skip('sudo is not installed here (apt-get install sudo)');
    if (sshd.testUser === undefined) return ctx.skip(`no user with a password: ${sshd.noTestUser}`);
    const user = sshd.testUser;
    const { client, add } = await suite.setup({
      answer: () => ({ action: 'accept', content: { password: user.password } }),
    });
    await add('prompt', { user: user.name, auth: 'password', sudo_method: 'prompt' });
    await add('none', { user: user.name, auth: 'password', sudo_method: 'none' });
    await add('np', { user: user.name, auth: 'password', sudo_method: 'nopasswd' });
    await fake.clearCalls();

    const restart = await client.call('systemd', {
      alias: 'prompt',
      action: 'restart',
      unit: 'web-worker@1.service',
    });
    expect(restart.isError, restart.text).toBe(false);
    expect(await fake.unitState('web-worker@1.service')).toMatchObject({ active: 'active' });
    const calls = await fake.calls();
    expect(calls.map((c) => [c.user, c.args[0]])).toEqual([
      ['root', 'restart'],
      [user.name, 'show'],
    ]);
    expect(client.asked.some((a) => a.message.startsWith('sudo password'))).toBe(true);

    await fake.clearCalls();
    const refused = await client.call('systemd', {
      alias: 'none',
      action: 'stop',
      unit: 'web-worker@1.service',
    });
    expect(refused.structured?.error).toBe('SUDO_REFUSED');
    const fast = await client.call('systemd', { alias: 'np', action: 'stop', unit: 'web-worker@1.service' });
    expect(fast.structured?.error).toBe('SUDO_REFUSED');
    expect(await fake.calls()).toEqual([]);
    expect(await fake.unitState('web-worker@1.service')).toMatchObject({ active: 'active' });
    // Reading needs no sudo, even with sudo off.
    const status = await client.call('systemd', {
      alias: 'none',
      action: 'status',
      unit: 'web-worker@1.service',
    });
    expect(status.isError, status.text).toBe(false);
    expect((await fake.calls()).every((c) => c.user === user.name)).toBe(true);
  });
});

describe('a host without systemd', () => {
  it('says so instead of failing obscurely', async () => {
    // A second sshd whose sessions find only sh and timeout on their PATH.
    const bare = join(suite.sshd.dir, 'bare-bin');
    await mkdir(bare, { recursive: true });
    await symlink('/bin/sh', join(bare, 'sh'));
    await symlink('/usr/bin/timeout', join(bare, 'timeout'));
    const other = await startSshd({ withUser: false, path: bare });
    try {
      const world = await makeWorld(other.dir, other.clientKey);
      const client = await suite.server(world.env);
      await client.call('add_alias', {
        name: 'bare',
        host: '127.0.0.1',
        port: other.port,
        user: other.user,
        key_path: other.clientKey,
        accept_new_host_key: true,
      });
      const r = await client.call('systemd', { alias: 'bare', action: 'list' });
      expect(r.structured?.error, r.text).toBe('NOT_SUPPORTED');
      expect(r.text).toContain('has no systemctl');
      const info = await client.call('sysinfo', { alias: 'bare' });
      expect(info.isError, info.text).toBe(false);
      expect(info.structured?.missing).toEqual(expect.arrayContaining(['hostname/kernel', 'cpu', 'disks']));
    } finally {
      await other.stop();
    }
  });
});
