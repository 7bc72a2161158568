import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeSysinfo, parseSysinfo, SYSINFO_SCRIPT } from '../../../examples/servers/ssh/sysinfo.js';
import {
  changeCommand,
  checkSince,
  checkUnitName,
  checkUnitPattern,
  commandLine,
  journalCommand,
  listCommand,
  parseShow,
  parseUnits,
} from '../../../examples/servers/ssh/systemd-commands.js';

/** sysinfo's parser on several hosts' outputs, and the systemd tool's checks and command lines. */
const M = '@@switchboard-sysinfo:';
const section = (name: string, body: string) => `${M}${name}\n${body}`;

describe('sysinfo parsing', () => {
  it('reads a Debian host', () => {
    const output = [
      section('uname', 'Linux web-1 6.1.0-18-amd64 x86_64'),
      section(
        'os',
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian',
      ),
      section('uptime', '273612.45 1022345.10'),
      section('load', '0.15 0.10 0.05 1/301 12345'),
      section(
        'memory',
        'MemTotal:        8038676 kB\nMemFree:          412345 kB\nMemAvailable:    6123456 kB\nSwapTotal:       2097148 kB\nSwapFree:        2097148 kB',
      ),
      section('cpus', '4'),
      section('cpu_model', 'model name\t: Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz'),
      section(
        'disks',
        'Filesystem     1024-blocks    Used Available Capacity Mounted on\nudev               4003288       0   4003288       0% /dev\ntmpfs               803868     872    802996       1% /run\n/dev/sda1         41152736 12694120  26345016      33% /\n/dev/sdb1        103081248  1024 97813888       1% /srv/my data\nnas:/export      1000000  500000    500000      50% /mnt/nas',
      ),
    ].join('\n');
    const info = parseSysinfo(output);
    expect(info).toEqual({
      hostname: 'web-1',
      kernel: { name: 'Linux', release: '6.1.0-18-amd64', machine: 'x86_64' },
      os: { name: 'Debian GNU/Linux 12 (bookworm)', version: '12', id: 'debian' },
      uptime_seconds: 273612,
      load: [0.15, 0.1, 0.05],
      cpu: { count: 4, model: 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz' },
      memory: {
        total_bytes: 8038676 * 1024,
        available_bytes: 6123456 * 1024,
        swap_total_bytes: 2097148 * 1024,
        swap_free_bytes: 2097148 * 1024,
      },
      disks: [
        {
          mount: '/',
          filesystem: '/dev/sda1',
          size_bytes: 41152736 * 1024,
          used_bytes: 12694120 * 1024,
          available_bytes: 26345016 * 1024,
          use_percent: 33,
        },
        {
          mount: '/srv/my data',
          filesystem: '/dev/sdb1',
          size_bytes: 103081248 * 1024,
          used_bytes: 1024 * 1024,
          available_bytes: 97813888 * 1024,
          use_percent: 1,
        },
        {
          mount: '/mnt/nas',
          filesystem: 'nas:/export',
          size_bytes: 1000000 * 1024,
          used_bytes: 500000 * 1024,
          available_bytes: 500000 * 1024,
          use_percent: 50,
        },
      ],
      missing: [],
    });
    const text = describeSysinfo(info).split('\n');
    expect(text[0]).toBe('host    web-1 · Debian GNU/Linux 12 (bookworm) · Linux 6.1.0-18-amd64 (x86_64)');
    expect(text[1]).toBe(
      'system  up 3 d 4 h 0 min · load 0.15 0.1 0.05 · 4 CPUs (Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz)',
    );
    expect(text[2]).toBe('memory  1.8 GiB used of 7.7 GiB (5.8 GiB available) · swap 0 MiB used of 2.0 GiB');
    expect(text[3]).toBe('disk    /  12.1 GiB used of 39.2 GiB (33%) · /dev/sda1');
  });

  it('reads a macOS-like host from uptime and sw_vers, and names what it lacks', () => {
    const output = [
      section('uname', 'Darwin mac.local 23.1.0 arm64'),
      section('os', 'ProductName:\tmacOS\nProductVersion:\t14.1\nBuildVersion:\t23B74'),
      section('uptime', ''),
      section('load', '10:01  up 3 days,  2:03, 2 users, load averages: 1.52 1.61 1.70'),
      section('memory', ''),
      section('cpus', '8'),
      section('cpu_model', 'Apple M2'),
      section(
        'disks',
        'Filesystem 1024-blocks Used Available Capacity  Mounted on\n/dev/disk3s1s1 971350180 9797684 412467708     3%    /\ndevfs 200 200 0 100% /dev',
      ),
    ].join('\n');
    const info = parseSysinfo(output);
    expect(info.os).toEqual({ name: 'macOS', version: '14.1' });
    expect(info.load).toEqual([1.52, 1.61, 1.7]);
    expect(info.cpu).toEqual({ count: 8, model: 'Apple M2' });
    expect(info.disks?.map((d) => d.mount)).toEqual(['/']);
    expect(info.missing).toEqual(['uptime', 'memory']);
    expect(describeSysinfo(info)).toContain('[not reported by this host: uptime, memory]');
  });

  it('survives empty, truncated and garbage output', () => {
    expect(parseSysinfo('').missing).toHaveLength(7);
    expect(parseSysinfo('garbage\n\u0000\nmore').missing).toHaveLength(7);
    const partial = parseSysinfo(
      `${section('uname', 'Linux')}\n${section('memory', 'MemTotal: lots')}\n${M}disks`,
    );
    expect(partial.kernel).toBeUndefined();
    expect(partial.memory).toBeUndefined();
    expect(describeSysinfo(parseSysinfo(''))).toMatch(/^\[not reported by this host:/);
  });

  it("is a script this machine's shell runs to the end, whatever is missing", () => {
    const run = spawnSync('/bin/sh', ['-c', SYSINFO_SCRIPT], {
      encoding: 'utf8',
      env: { PATH: '/nonexistent' },
    });
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').filter((l) => l.startsWith(M))).toHaveLength(8);
  });
});

describe('systemd checks and parsing', () => {
  it('accepts systemd unit names and refuses anything else with a message', () => {
    for (const name of [
      'nginx',
      'nginx.service',
      'getty@tty1.service',
      'dev-disk-by\\x2dlabel-x.device',
      'a:b_c.d-e',
    ])
      expect(checkUnitName(name)).toBe(name);
    for (const name of [
      '',
      '-x',
      '--help',
      '.x',
      'a b',
      'a;b',
      'a$b',
      'a/b',
      "a'b",
      'a\nb',
      'é',
      'x'.repeat(256),
    ])
      expect(() => checkUnitName(name), JSON.stringify(name)).toThrow(/is not a valid unit name/);
    expect(checkUnitPattern('nginx*')).toBe('nginx*');
    expect(checkUnitPattern('[ab]?.timer')).toBe('[ab]?.timer');
    expect(() => checkUnitPattern('-*')).toThrow();
    expect(checkSince('2024-05-01 10:00')).toBe('2024-05-01 10:00');
    expect(() => checkSince('1h; rm')).toThrow(/not a valid since/);
  });

  it('builds each command from quoted words', () => {
    expect(changeCommand('restart', 'nginx')).toBe("'systemctl' 'restart' '--' 'nginx'");
    expect(() => changeCommand('status', 'nginx')).toThrow();
    expect(listCommand({ type: 'all', state: 'failed', pattern: 'a*' })).toBe(
      "'systemctl' 'list-units' '--no-pager' '--no-legend' '--plain' '--all' '--state=failed' '--' 'a*'",
    );
    expect(journalCommand({ unit: 'x', lines: 5, since: 'today' })).toBe(
      "'journalctl' '--no-pager' '--output=short-iso' '--lines=5' '--unit=x' '--since=today'",
    );
  });

  it('parses show and list-units output', () => {
    expect(parseShow('Id=a.service\nDescription=A = B\n\nbad line\n')).toEqual({
      Id: 'a.service',
      Description: 'A = B',
    });
    expect(
      parseUnits('a.service loaded active running The A\n● b.service loaded failed failed B\n\nshort line\n'),
    ).toEqual([
      { unit: 'a.service', load: 'loaded', active: 'active', sub: 'running', description: 'The A' },
      { unit: 'b.service', load: 'loaded', active: 'failed', sub: 'failed', description: 'B' },
    ]);
  });

  // What a POSIX shell makes of a command line: its words, each ended by NUL.
  // Debian's /bin/sh is dash; bash too where it is installed (busybox sh behaves as dash here).
  const shells = [
    ...new Set(['/bin/sh', '/bin/bash'].filter((s) => existsSync(s)).map((s) => realpathSync(s))),
  ];
  const wordsOf = (shell: string, line: string) => {
    const run = spawnSync(shell, ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.split('\0').slice(0, -1);
  };

  it('quotes every word so the shell reads it back byte for byte: a seeded bounded fuzzer', () => {
    let seed = 0xc0ffee;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // Everything a shell treats specially, and then some; NUL cannot be in an argument at all.
    const alphabet = [
      ...'\'"`$\\;|&<>(){}[]*?!~#= \t\n\r-.:@%^,+',
      'a',
      'Z',
      '9',
      'é',
      '\u2028',
      '\x01',
      '\x7f',
    ];
    const unitChars = [...'abcxyz09:_.@\\-'];
    // Mostly unit-name characters for unit names, so both refusals and acceptances are seen.
    const word = (usual: readonly string[] = alphabet) =>
      Array.from({ length: Math.floor(random() * 12) }, () => {
        const from = random() < 0.2 ? alphabet : usual;
        return from[Math.floor(random() * from.length)];
      }).join('');
    let accepted = 0;
    for (let round = 0; round < 120; round++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 4) }, () => word());
      for (const shell of shells)
        expect(wordsOf(shell, commandLine(words)), `${shell} ${JSON.stringify(words)}`).toEqual(words);
      // A unit name either is refused, or reaches systemctl as exactly one argument after "--".
      const unit = word(unitChars);
      let line: string | undefined;
      try {
        line = changeCommand('restart', unit);
      } catch {
        expect(/^[A-Za-z0-9:_.@\\-]{1,255}$/.test(unit) && !/^[-.]/.test(unit), JSON.stringify(unit)).toBe(
          false,
        );
      }
      if (line !== undefined) {
        accepted++;
        expect(wordsOf(shells[0]!, line)).toEqual(['systemctl', 'restart', '--', unit]);
      }
    }
    expect(accepted).toBeGreaterThan(20);
  });
});
