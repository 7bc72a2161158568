import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sshSuite } from './suite.js';

/**
 * read_file, list_files and grep_files against a real sshd's SFTP, as the login user: the
 * numbered format and its notes, offsets, caps and limits, symlinks (shown, never followed
 * while walking), binary, CRLF and non-UTF-8 files, huge files, and patterns that would hang.
 * The edit tools are in edits.test.ts.
 */
const suite = sshSuite({ withUser: false });
const setup = (env: Record<string, string> = {}) => suite.setup({ env });

const numberedLines = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `${String(from + i).padStart(6)}\tline ${from + i}`);

describe('read_file', () => {
  it('numbers lines like cat -n, reads from offset for limit lines, and says how to read on', async () => {
    const { client, dir } = await setup();
    const body = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    await writeFile(join(dir, 'a.txt'), body);

    const all = await client.call('read_file', { alias: 'me', path: join(dir, 'a.txt') });
    expect(all.isError, all.text).toBe(false);
    const lines = all.text.split('\n');
    expect(lines.slice(0, 30)).toEqual(numberedLines(30));
    expect(lines[30]).toMatch(/^\[lines 1-30 of 30 · 231 B · version [0-9a-f]{16}\]$/);
    expect(all.structured).toMatchObject({ start_line: 1, end_line: 30, total_lines: 30, truncated: false });

    const part = await client.call('read_file', {
      alias: 'me',
      path: join(dir, 'a.txt'),
      offset: 11,
      limit: 5,
    });
    expect(part.text.split('\n').slice(0, 5)).toEqual(numberedLines(5, 11));
    expect(part.text).toContain('[lines 11-15 of 30');
    expect(part.text).toContain('call again with offset=16');
    expect(part.structured).toMatchObject({ truncated: true, next_offset: 16 });

    const past = await client.call('read_file', { alias: 'me', path: join(dir, 'a.txt'), offset: 31 });
    expect(past.isError).toBe(false);
    expect(past.text).toContain('offset 31 is past the end: the file has 30 line(s)');
  });

  it('says CRLF, missing final newline, invalid UTF-8 and symlinks; cuts long lines and long output', async () => {
    const { client, dir } = await setup({ SSH_MCP_OUTPUT_MAX: '2048' });
    await writeFile(join(dir, 'dos.txt'), 'one\r\ntwo\r\nthree');
    const dos = await client.call('read_file', { alias: 'me', path: join(dir, 'dos.txt') });
    expect(dos.text.split('\n').slice(0, 3)).toEqual(['     1\tone', '     2\ttwo', '     3\tthree']);
    expect(dos.text).toContain('CRLF line breaks');
    expect(dos.text).toContain('no newline at end');

    await writeFile(join(dir, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    const latin = await client.call('read_file', { alias: 'me', path: join(dir, 'latin1.txt') });
    expect(latin.text).toContain('caf\uFFFD');
    expect(latin.text).toContain('not valid UTF-8');
    expect(latin.structured?.utf8).toBe(false);

    await symlink(join(dir, 'dos.txt'), join(dir, 'link.txt'));
    const viaLink = await client.call('read_file', { alias: 'me', path: join(dir, 'link.txt') });
    expect(viaLink.text).toContain(`a symlink to ${join(dir, 'dos.txt')}`);

    await writeFile(join(dir, 'long.txt'), `${'x'.repeat(2500)}\n`);
    const long = await client.call('read_file', { alias: 'me', path: join(dir, 'long.txt') });
    expect(long.text).toContain(`${'x'.repeat(2000)}… [500 more characters]`);

    await writeFile(
      join(dir, 'many.txt'),
      `${Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n')}\n`,
    );
    const many = await client.call('read_file', { alias: 'me', path: join(dir, 'many.txt') });
    expect(Buffer.byteLength(many.text)).toBeLessThan(2048 + 300);
    expect(many.text).toMatch(/output cut at 2048 bytes: call again with offset=\d+ to read on/);
  });

  it('refuses binary files, folders and missing paths with their own codes', async () => {
    const { client, dir } = await setup();
    await writeFile(join(dir, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    const bin = await client.call('read_file', { alias: 'me', path: join(dir, 'blob.bin') });
    expect(bin.structured?.error).toBe('BINARY_FILE');
    expect((await client.call('read_file', { alias: 'me', path: dir })).structured?.error).toBe('NOT_A_FILE');
    const gone = await client.call('read_file', { alias: 'me', path: join(dir, 'nope.txt') });
    expect(gone.structured?.error).toBe('NOT_FOUND');
    expect(gone.text).toContain('does not exist');
  });

  it('reads the head of a file above SSH_MCP_FILE_MAX without reading it all, and refuses lines beyond the limit', async () => {
    const { client, dir } = await setup({ SSH_MCP_FILE_MAX: '65536' });
    const line = `${'y'.repeat(99)}\n`;
    await writeFile(join(dir, 'huge.log'), line.repeat(20_000)); // 2 MB
    const head = await client.call('read_file', { alias: 'me', path: join(dir, 'huge.log'), limit: 10 });
    expect(head.isError, head.text).toBe(false);
    expect(head.text).toContain('lines 1-10 of more than');
    expect(head.structured).toMatchObject({ total_lines: null, truncated: true, next_offset: 11 });
    expect(head.structured?.version).toBeUndefined();
    const far = await client.call('read_file', { alias: 'me', path: join(dir, 'huge.log'), offset: 15_000 });
    expect(far.structured?.error).toBe('FILE_TOO_LARGE');
    expect(far.text).toContain("sed -n '100,200p'");
  });

  it("starts relative and ~/ paths in the login user's home", async () => {
    const { client } = await setup();
    const home = (await client.call('exec', { alias: 'me', command: 'printf %s "$HOME"' })).structured
      ?.stdout as string;
    const name = `.sb-read-${process.pid}-${Date.now()}`;
    await writeFile(join(home, name), 'at home\n');
    try {
      for (const path of [name, `~/${name}`]) {
        const r = await client.call('read_file', { alias: 'me', path });
        expect(r.text.split('\n')[0], path).toBe('     1\tat home');
      }
    } finally {
      await client.call('exec', { alias: 'me', command: `rm -f ~/${name}` });
    }
  });
});

describe('list_files', () => {
  it('lists kinds, sizes and symlink targets, to a depth, filtered by a glob, capped with a note', async () => {
    const { client, dir } = await setup();
    await mkdir(join(dir, 'src/lib'), { recursive: true });
    await writeFile(join(dir, 'src/main.ts'), 'main\n');
    await writeFile(join(dir, 'src/lib/util.ts'), 'util!\n');
    await writeFile(join(dir, 'README.md'), '# hi\n');
    await symlink('/', join(dir, 'root-link'));

    const top = await client.call('list_files', { alias: 'me', path: dir });
    expect(top.isError, top.text).toBe(false);
    const rows = top.text.split('\n');
    expect(rows[0]).toBe(`${dir}/: 3 entries, depth 1 (kind, bytes, modified UTC, path)`);
    expect(rows[1]).toMatch(/^file {12}5 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}README\.md$/);
    expect(rows[2]).toMatch(/^link +- .* root-link -> \/$/);
    expect(rows[3]).toMatch(/^dir +- .* src\/$/);

    const deep = await client.call('list_files', { alias: 'me', path: dir, depth: 5, glob: '*.ts' });
    expect(
      deep.text
        .split('\n')
        .slice(1)
        .map((r) => r.split(/\s+/).pop()),
    ).toEqual(['src/lib/util.ts', 'src/main.ts']);
    // The link to / was not walked into, however deep.
    const everything = await client.call('list_files', { alias: 'me', path: dir, depth: 10 });
    expect(everything.structured?.entries).toHaveLength(6);

    const capped = await client.call('list_files', { alias: 'me', path: dir, depth: 3, max_entries: 2 });
    expect(capped.text).toContain('[stopped at 2 entries (max_entries)');
    expect(capped.structured?.truncated).toBe(true);

    const one = await client.call('list_files', { alias: 'me', path: join(dir, 'README.md') });
    expect(one.text.split('\n')).toHaveLength(2);
    const missing = await client.call('list_files', { alias: 'me', path: join(dir, 'none') });
    expect(missing.structured?.error).toBe('NOT_FOUND');
  });
});

describe('grep_files', () => {
  it('prints path:line:text, honours glob and ignore_case, skips binary files, .git and symlinks', async () => {
    const { client, dir } = await setup();
    await mkdir(join(dir, 'src'), { recursive: true });
    await mkdir(join(dir, '.git'), { recursive: true });
    await writeFile(join(dir, 'src/a.ts'), 'const x = 1;\nTODO: fix\n// todo later\n');
    await writeFile(join(dir, 'src/b.py'), 'x = 2  # TODO\n');
    await writeFile(join(dir, 'src/crlf.txt'), 'TODO end\r\nmore\r\n');
    await writeFile(join(dir, '.git/config'), 'TODO in git\n');
    await writeFile(join(dir, 'bin.dat'), Buffer.concat([Buffer.from('TODO'), Buffer.alloc(10)]));
    await symlink(join(dir, 'src'), join(dir, 'again'));

    const all = await client.call('grep_files', { alias: 'me', pattern: 'TODO', path: dir });
    expect(all.isError, all.text).toBe(false);
    const hits = all.text.split('\n').filter((l) => !l.startsWith('['));
    expect(hits).toEqual([
      `${dir}/src/a.ts:2:TODO: fix`,
      `${dir}/src/b.py:1:x = 2  # TODO`,
      `${dir}/src/crlf.txt:1:TODO end`,
    ]);
    expect(all.text).toContain('skipped 1 binary');

    const ts = await client.call('grep_files', {
      alias: 'me',
      pattern: 'todo',
      path: dir,
      glob: '*.ts',
      ignore_case: true,
    });
    expect(ts.structured).toMatchObject({ matches: 2, files_with_matches: 1 });
    // `$` matches before a CRLF line break.
    const end = await client.call('grep_files', {
      alias: 'me',
      pattern: 'end$',
      path: join(dir, 'src/crlf.txt'),
    });
    expect(end.structured?.matches).toBe(1);
    const none = await client.call('grep_files', { alias: 'me', pattern: 'nowhere', path: dir });
    expect(none.text).toMatch(/^No line matches \/nowhere\//);
  });

  it('stops at max_results and at the file bound, naming which', async () => {
    const { client, dir } = await setup({ SSH_MCP_GREP_MAX_FILES: '4', SSH_MCP_FILE_MAX: '1024' });
    for (let i = 0; i < 10; i++) await writeFile(join(dir, `f${i}.txt`), 'hit\nhit\n');
    await writeFile(join(dir, 'big.txt'), 'hit\n'.repeat(1000)); // over SSH_MCP_FILE_MAX: skipped, not read
    const few = await client.call('grep_files', { alias: 'me', pattern: 'hit', path: dir, max_results: 3 });
    expect(few.structured?.matches).toBe(3);
    expect(few.text).toContain('[stopped at 3 matches (max_results)');
    const bounded = await client.call('grep_files', { alias: 'me', pattern: 'hit', path: dir });
    expect(bounded.structured).toMatchObject({ files_searched: 4, matches: 8 });
    expect(bounded.text).toContain('stopped at 4 files searched (SSH_MCP_GREP_MAX_FILES)');
    expect(bounded.text).toContain('skipped 1 over 1.0 KiB');
  });

  it('survives repeated searches of many files (late errors of closing handles once the session ended)', async () => {
    const { client, dir } = await setup();
    for (let i = 0; i < 300; i++) await writeFile(join(dir, `f${i}.ts`), 'some text\n'.repeat(900));
    // Before the fix, the server process died within a few rounds: a read stream's handle
    // closing after the SFTP session had ended emitted an error nobody listened to.
    for (let round = 0; round < 8; round++) {
      const r = await client.call('grep_files', { alias: 'me', pattern: 'NEEDLE', path: dir });
      expect(r.structured?.files_searched, r.text).toBe(300);
    }
  });

  it('refuses a malformed pattern, and ends a pattern that backtracks without end instead of hanging', async () => {
    const { client, dir } = await setup();
    await writeFile(join(dir, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const bad = await client.call('grep_files', { alias: 'me', pattern: '(unclosed', path: dir });
    expect(bad.structured?.error).toBe('INVALID_ARGUMENT');
    const slow = await client.call('grep_files', { alias: 'me', pattern: '^(a+)+$', path: dir });
    expect(slow.structured?.error).toBe('LIMIT');
    expect(slow.text).toContain('evil.txt');
    // The server still answers.
    const after = await client.call('grep_files', { alias: 'me', pattern: 'b$', path: dir });
    expect(after.structured?.matches).toBe(1);
  });
});

describe('what the file tools leave behind', () => {
  it('reads nothing through sudo and writes nothing while reading', async () => {
    const { client, dir } = await setup();
    await writeFile(join(dir, 'x.txt'), 'x\n');
    await chmod(join(dir, 'x.txt'), 0o640);
    const before = await stat(join(dir, 'x.txt'));
    await client.call('read_file', { alias: 'me', path: join(dir, 'x.txt') });
    await client.call('list_files', { alias: 'me', path: dir });
    await client.call('grep_files', { alias: 'me', pattern: 'x', path: dir });
    const after = await lstat(join(dir, 'x.txt'));
    expect([after.mtimeMs, after.mode]).toEqual([before.mtimeMs, before.mode]);
    expect(await readdir(dir)).toEqual(['x.txt']);
    expect(await readFile(join(dir, 'x.txt'), 'utf8')).toBe('x\n');
  });
});
