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
    expect(logFileName('../../etc/passwd')).toMatch(/^__\.\._etc_passwd-[0-9a-f]{10}\.log$/);
    expect(logFileName('a b/c')).toMatch(/^a_b_c-[0-9a-f]{10}\.log$/);
  });

  it('never gives two names one file, and keeps any name short enough for the file system', () => {
    expect(logFileName('a b')).not.toBe(logFileName('a_b'));
    expect(logFileName('a?b')).not.toBe(logFileName('a*b'));
    const long = 'x'.repeat(300);
    expect(Buffer.byteLength(logFileName(long))).toBeLessThanOrEqual(100);
    expect(logFileName(long)).not.toBe(logFileName(`${long}y`));
    expect(Buffer.byteLength(logFileName('ü'.repeat(200)))).toBeLessThanOrEqual(100);
    for (const odd of ['', '.', '..', '.hidden', '\u0000', 'a/../b'])
      expect(logFileName(odd)).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.log$/);
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
    await logs.flush();
    const text = await readFile(join(dir, 'gh.log'), 'utf8');
    expect(text).toBe(
      '2026-11-29T12:00:00.000Z [stderr] using *** now\n2026-11-29T12:00:00.000Z [lifecycle] connected\n',
    );
    expect((await stat(join(dir, 'gh.log'))).mode & 0o777).toBe(0o600);
  });

  it('rotates past the size limit to one backup', async () => {
    const logs = new LogFiles({ dir, maxBytes: 200 });
    for (let i = 0; i < 10; i++) {
      logs.write('s', { at, source: 'stderr', level: 'info', text: `line ${i} ${'x'.repeat(30)}` });
      await logs.flush();
    }
    const current = await readFile(join(dir, 's.log'), 'utf8');
    const backup = await readFile(join(dir, 's.log.1'), 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(200);
    expect(backup).toContain('line');
    expect(current).toContain('line 9');
    // Nothing beyond one backup.
    await expect(stat(join(dir, 's.log.2'))).rejects.toThrow();
  });
});

describe('LogFiles under pressure', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-logs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a flood in a few batches, in order, without blocking the caller per line', async () => {
    const logs = new LogFiles({ dir });
    // As a flood arrives: hundreds of lines per turn of the event loop, over many turns.
    for (let i = 0; i < 30_000; i++) {
      logs.write('flood', { at, source: 'server', level: 'info', text: `line ${i}` });
      if (i % 500 === 499) await new Promise((r) => setTimeout(r, 1));
    }
    await logs.flush();
    const lines = (await readFile(join(dir, 'flood.log'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(30_000);
    expect(lines[0]).toContain('line 0');
    expect(lines[29_999]).toContain('line 29999');
  });

  it('drops past its bound and says how many with one marker line', async () => {
    const logs = new LogFiles({ dir, maxPendingBytes: 4096 });
    for (let i = 0; i < 1000; i++)
      logs.write('s', { at, source: 'stderr', level: 'info', text: `line ${i}` });
    await logs.flush();
    logs.write('s', { at, source: 'stderr', level: 'info', text: 'after' });
    await logs.flush();
    const lines = (await readFile(join(dir, 's.log'), 'utf8')).trimEnd().split('\n');
    const marker = lines.find((l) => l.includes('dropped'));
    const kept = lines.filter((l) => /line \d+$/.test(l)).length;
    expect(marker).toMatch(/\[lifecycle\] (\d+) log lines dropped/);
    expect(kept + Number(/(\d+) log lines/.exec(marker!)![1])).toBe(1000);
    expect(lines.at(-1)).toContain('after');
  });

  it('contains a write error: reported once, counted, and writing resumes when it can', async () => {
    const errors: string[] = [];
    const logs = new LogFiles({ dir, onError: (_file, error) => errors.push(error.code ?? '?') });
    // A directory where the file should be: every append fails with EISDIR.
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'broken.log'));
    for (let i = 0; i < 3; i++) {
      logs.write('broken', { at, source: 'stderr', level: 'info', text: `lost ${i}` });
      await logs.flush();
    }
    expect(errors).toEqual(['EISDIR']);
    await rm(join(dir, 'broken.log'), { recursive: true });
    logs.write('broken', { at, source: 'stderr', level: 'info', text: 'back' });
    await logs.flush();
    const text = await readFile(join(dir, 'broken.log'), 'utf8');
    expect(text).toMatch(/3 log lines dropped/);
    expect(text).toContain('back');
  });

  it('writes what still waits when the process exits', async () => {
    const { execFileSync } = await import('node:child_process');
    const source = new URL('../../../src/host/logs/log-files.ts', import.meta.url).pathname;
    const script = `
      import { LogFiles } from ${JSON.stringify(source)};
      const logs = new LogFiles({ dir: ${JSON.stringify(dir)} });
      for (let i = 0; i < 100; i++) logs.write('exit', { at: new Date(), source: 'stderr', level: 'info', text: 'line ' + i });
      process.exit(0);
    `;
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: 'pipe',
    });
    const lines = (await readFile(join(dir, 'exit.log'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(100);
  });
});
