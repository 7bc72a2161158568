import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogFiles } from '../../../src/host/logs/log-files.js';
import { formatLogLine, logFileName, redact } from '../../../src/host/logs/log-line.js';

const at = new Date('2026-11-29T12:00:00.000Z');

describe('log lines', () => {
  it('formats time, tag and text on one line', () => {
    expect(formatLogLine({ at, source: 'stderr', level: 'info', text: 'hello' })).toBe(
      '2026-11-29T12:00:00.000Z [stderr] hello\n',
    );
    expect(formatLogLine({ at, source: 'server', level: 'warning', text: 'careful' })).toBe(
      '2026-11-29T12:00:00.000Z [warning] careful\n',
    );
    expect(formatLogLine({ at, source: 'lifecycle', level: 'info', text: 'a\nb' })).toBe(
      '2026-11-29T12:00:00.000Z [lifecycle] a\\nb\n',
    );
  });

  it('hides secrets, longest first, and ignores ones too short to be secrets', () => {
    expect(redact('token=abc123xyz and abc123', ['abc123', 'abc123xyz', 'ab'])).toBe('token=*** and ***');
  });

  it('makes a safe flat file name of any server name', () => {
    expect(logFileName('github')).toBe('github.log');
    expect(logFileName('../../etc/passwd')).toBe('__.._etc_passwd.log');
    expect(logFileName('a b/c')).toBe('a_b_c.log');
  });
});

describe('LogFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-logs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends lines and keeps secrets out', async () => {
    const logs = new LogFiles({ dir });
    logs.setSecrets('gh', ['ghp_supersecret']);
    logs.write('gh', { at, source: 'stderr', level: 'info', text: 'using ghp_supersecret now' });
    logs.write('gh', { at, source: 'lifecycle', level: 'info', text: 'connected' });
    const text = await readFile(join(dir, 'gh.log'), 'utf8');
    expect(text).toBe(
      '2026-11-29T12:00:00.000Z [stderr] using *** now\n2026-11-29T12:00:00.000Z [lifecycle] connected\n',
    );
    expect((await stat(join(dir, 'gh.log'))).mode & 0o777).toBe(0o600);
  });

  it('rotates past the size limit to one backup', async () => {
    const logs = new LogFiles({ dir, maxBytes: 200 });
    for (let i = 0; i < 10; i++)
      logs.write('s', { at, source: 'stderr', level: 'info', text: `line ${i} ${'x'.repeat(30)}` });
    const current = await readFile(join(dir, 's.log'), 'utf8');
    const backup = await readFile(join(dir, 's.log.1'), 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(200);
    expect(backup).toContain('line');
    expect(current).toContain('line 9');
    // Nothing beyond one backup.
    await expect(stat(join(dir, 's.log.2'))).rejects.toThrow();
  });
});
