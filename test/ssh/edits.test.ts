import {
  chmod,
  chown,
  lstat,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../examples/servers/ssh/connection.js';
import { withRemoteFs } from '../../examples/servers/ssh/remote-fs.js';
import { rewriteFile } from '../../examples/servers/ssh/remote-write.js';
import { readSettings } from '../../examples/servers/ssh/settings.js';
import type { Answerer } from './ssh-client.js';
import { sshSuite } from './suite.js';

/**
 * edit_file and replace_lines against a real sshd: exact matches (none, several with their
 * lines, replace_all), the numbered diff, atomic replacement keeping mode and owner, CRLF and
 * non-UTF-8 bytes kept, symlinks edited through, stale versions refused, concurrent edits all
 * landing, a file changed between the edit's read and its write left alone, and — as a user
 * who is not root — permission refusals and the in-place fallback.
 */
const suite = sshSuite();
const setup = (env: Record<string, string> = {}, answer?: Answerer) =>
  suite.setup({ env, ...(answer && { answer }) });

const twenty = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

describe('edit_file', () => {
  it('replaces one exact occurrence atomically, keeps the mode, and shows numbered hunks', async () => {
    const { client, dir } = await setup();
    const file = join(dir, 'conf.txt');
    await writeFile(file, twenty);
    await chmod(file, 0o640);
    const inode = (await stat(file)).ino;
    const result = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'line 10\n',
      new_string: 'line ten\nline ten and a half\n',
    });
    expect(result.isError, result.text).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(twenty.replace('line 10\n', 'line ten\nline ten and a half\n'));
    const after = await stat(file);
    expect(after.mode & 0o7777).toBe(0o640);
    expect(after.ino).not.toBe(inode); // a new file renamed over the old one
    expect(result.text.split('\n')).toEqual([
      expect.stringMatching(
        /^Edited .*conf\.txt: 1 replacement, written atomically; version [0-9a-f]{16}\.$/,
      ),
      '@@ -7,7 +7,8 @@',
      '      7\tline 7',
      '      8\tline 8',
      '      9\tline 9',
      '-    10\tline 10',
      '+    10\tline ten',
      '+    11\tline ten and a half',
      '     12\tline 11',
      '     13\tline 12',
      '     14\tline 13',
    ]);
    expect(await readdir(dir)).toEqual(['conf.txt']); // no temporary file left
  });

  it('refuses no match and several matches (naming their lines); replace_all replaces them all', async () => {
    const { client, dir } = await setup();
    const file = join(dir, 'dup.txt');
    await writeFile(file, 'a = 1\nb = 2\na = 1\nc = 3\na = 1\n');
    const none = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'z = 9',
      new_string: 'x',
    });
    expect(none.structured?.error).toBe('NO_MATCH');
    const several = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'a = 1',
      new_string: 'a = 2',
    });
    expect(several.structured?.error).toBe('AMBIGUOUS_MATCH');
    expect(several.text).toContain('occurs 3 times');
    expect(several.text).toContain('at lines 1, 3, 5');
    expect(await readFile(file, 'utf8')).toBe('a = 1\nb = 2\na = 1\nc = 3\na = 1\n');
    const all = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'a = 1',
      new_string: 'a = 2',
      replace_all: true,
    });
    expect(all.structured).toMatchObject({ replacements: 3 });
    expect(await readFile(file, 'utf8')).toBe('a = 2\nb = 2\na = 2\nc = 3\na = 2\n');
    const same = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'b',
      new_string: 'b',
    });
    expect(same.structured?.error).toBe('INVALID_ARGUMENT');
  });

  it('keeps CRLF line breaks and bytes that are not UTF-8 exactly as they were', async () => {
    const { client, dir } = await setup();
    const dos = join(dir, 'dos.ini');
    await writeFile(dos, '[a]\r\nx=1\r\ny=2\r\n');
    const r = await client.call('edit_file', {
      alias: 'me',
      path: dos,
      old_string: 'x=1\ny=2',
      new_string: 'x=5\nz=3\ny=2',
    });
    expect(r.isError, r.text).toBe(false);
    expect(await readFile(dos, 'latin1')).toBe('[a]\r\nx=5\r\nz=3\r\ny=2\r\n');

    const latin = join(dir, 'latin1.txt');
    const bytes = Buffer.concat([
      Buffer.from('name=caf'),
      Buffer.from([0xe9]),
      Buffer.from('\nport=80\n\xff\xfe end\n', 'latin1'),
    ]);
    await writeFile(latin, bytes);
    const p = await client.call('edit_file', {
      alias: 'me',
      path: latin,
      old_string: 'port=80',
      new_string: 'port=8080',
    });
    expect(p.isError, p.text).toBe(false);
    expect(await readFile(latin)).toEqual(
      Buffer.concat([
        Buffer.from('name=caf'),
        Buffer.from([0xe9]),
        Buffer.from('\nport=8080\n\xff\xfe end\n', 'latin1'),
      ]),
    );
  });

  it('edits the target of a symlink and leaves the link; creates a new file for an empty old_string', async () => {
    const { client, dir } = await setup();
    await writeFile(join(dir, 'real.txt'), 'v=1\n');
    await symlink('real.txt', join(dir, 'link.txt'));
    const r = await client.call('edit_file', {
      alias: 'me',
      path: join(dir, 'link.txt'),
      old_string: 'v=1',
      new_string: 'v=2',
    });
    expect(r.isError, r.text).toBe(false);
    expect((await lstat(join(dir, 'link.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, 'link.txt'))).toBe('real.txt');
    expect(await readFile(join(dir, 'real.txt'), 'utf8')).toBe('v=2\n');

    const made = await client.call('edit_file', {
      alias: 'me',
      path: join(dir, 'new.txt'),
      old_string: '',
      new_string: 'hello\n',
    });
    expect(made.structured).toMatchObject({ created: true });
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('hello\n');
    const again = await client.call('edit_file', {
      alias: 'me',
      path: join(dir, 'new.txt'),
      old_string: '',
      new_string: 'x',
    });
    expect(again.structured?.error).toBe('INVALID_ARGUMENT');
  });

  it('refuses binary files, files above SSH_MCP_FILE_MAX and folders', async () => {
    const { client, dir } = await setup({ SSH_MCP_FILE_MAX: '4096' });
    await writeFile(join(dir, 'b.bin'), Buffer.from('ab\0cd'));
    await writeFile(join(dir, 'big.txt'), 'x\n'.repeat(4000));
    const call = (path: string) =>
      client.call('edit_file', { alias: 'me', path, old_string: 'x', new_string: 'y' });
    expect((await call(join(dir, 'b.bin'))).structured?.error).toBe('BINARY_FILE');
    expect((await call(join(dir, 'big.txt'))).structured?.error).toBe('FILE_TOO_LARGE');
    expect((await call(dir)).structured?.error).toBe('NOT_A_FILE');
    expect((await call(join(dir, 'none.txt'))).structured?.error).toBe('NOT_FOUND');
  });
});

describe('a file that changes under the edit', () => {
  it('refuses an edit whose expected_version is not the file any more (changed between read and edit)', async () => {
    const { client, dir } = await setup();
    const file = join(dir, 'v.txt');
    await writeFile(file, twenty);
    const read = await client.call('read_file', { alias: 'me', path: file });
    const version = read.structured?.version as string;
    await writeFile(file, twenty.replace('line 3\n', 'line three\n')); // someone else edits
    const stale = await client.call('replace_lines', {
      alias: 'me',
      path: file,
      start_line: 3,
      end_line: 3,
      new_text: 'mine',
      expected_version: version,
    });
    expect(stale.structured?.error).toBe('FILE_CHANGED');
    expect(await readFile(file, 'utf8')).toContain('line three\n');
    // Without a version, an exact-string edit of the changed text finds nothing to replace.
    const gone = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'line 3\n',
      new_string: 'x\n',
    });
    expect(gone.structured?.error).toBe('NO_MATCH');
    const fresh = await client.call('read_file', { alias: 'me', path: file });
    const ok = await client.call('edit_file', {
      alias: 'me',
      path: file,
      old_string: 'line three',
      new_string: 'line 3',
      expected_version: fresh.structured?.version,
    });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.structured?.previous_version).toBe(fresh.structured?.version);
  });

  it('lets concurrent edits of one file all land', async () => {
    const { client, dir } = await setup();
    const file = join(dir, 'busy.txt');
    await writeFile(file, twenty);
    const results = await Promise.all(
      [2, 5, 9, 14, 18].map((n) =>
        client.call('edit_file', {
          alias: 'me',
          path: file,
          old_string: `line ${n}\n`,
          new_string: `LINE ${n}\n`,
        }),
      ),
    );
    for (const r of results) expect(r.isError, r.text).toBe(false);
    const text = await readFile(file, 'utf8');
    for (const n of [2, 5, 9, 14, 18]) expect(text).toContain(`LINE ${n}\n`);
    expect(text.split('\n')).toHaveLength(21);
  });

  it('writes nothing when the file differs, at the moment of writing, from what the edit read', async () => {
    const { sshd } = suite;
    const dir = await mkdtemp(join(sshd.dir, 'race-'));
    const file = join(dir, 'race.txt');
    await writeFile(file, 'current\n');
    const connection = await openConnection({
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      credentials: { kind: 'key', privateKey: await readFile(sshd.clientKey, 'utf8') },
      timeoutMs: 20_000,
      preferredHostKeyTypes: [],
      verifyHostKey: () => undefined,
    });
    try {
      const settings = readSettings({ HOME: sshd.dir });
      const before = await readdir(dir);
      const outcome = await withRemoteFs(connection, settings, async (fs) => {
        const stats = await fs.stat(file);
        // What the edit read was "as read\n"; the file holds something else by now.
        return rewriteFile(
          fs,
          { path: file, data: Buffer.from('as read\n'), stats },
          Buffer.from('edited\n'),
          {
            maxBytes: 1024,
          },
        ).catch((error: { code?: string }) => error.code);
      });
      expect(outcome).toBe('FILE_CHANGED');
      expect(await readFile(file, 'utf8')).toBe('current\n');
      expect(await readdir(dir)).toEqual(before); // the temporary file was removed
    } finally {
      connection.close();
    }
  });
});

describe('replace_lines', () => {
  it('replaces, inserts, appends and deletes lines, keeping CRLF, and shows the region', async () => {
    const { client, dir } = await setup();
    const file = join(dir, 'r.txt');
    await writeFile(file, 'one\r\ntwo\r\nthree\r\n');
    const call = (start_line: number, end_line: number, new_text: string) =>
      client.call('replace_lines', { alias: 'me', path: file, start_line, end_line, new_text });

    const replaced = await call(2, 2, 'TWO\nTWO-B');
    expect(replaced.isError, replaced.text).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('one\r\nTWO\r\nTWO-B\r\nthree\r\n');
    expect(replaced.text.split('\n').slice(1)).toEqual([
      '@@ -1,3 +1,4 @@',
      '      1\tone',
      '-     2\ttwo',
      '+     2\tTWO',
      '+     3\tTWO-B',
      '      4\tthree',
    ]);
    await call(1, 0, 'zero');
    await call(6, 5, 'last');
    expect(await readFile(file, 'utf8')).toBe('zero\r\none\r\nTWO\r\nTWO-B\r\nthree\r\nlast\r\n');
    await call(3, 4, '');
    expect(await readFile(file, 'utf8')).toBe('zero\r\none\r\nthree\r\nlast\r\n');

    const outside = await call(9, 9, 'x');
    expect(outside.structured?.error).toBe('INVALID_ARGUMENT');
    expect(outside.text).toContain('has 4 line(s)');
    expect((await call(3, 1, 'x')).structured?.error).toBe('INVALID_ARGUMENT');
  });
});

describe('as a login user who is not root', () => {
  it('reports permission refusals, and rewrites in place (owner kept) where no temporary file can be made', async (ctx) => {
    const { sshd } = suite;
    if (sshd.testUser === undefined) return ctx.skip(`no second login to test: ${sshd.noTestUser}`);
    const user = sshd.testUser;
    const { client, dir } = await setup({}, (a) =>
      a.fields.includes('password')
        ? { action: 'accept', content: { password: user.password } }
        : { action: 'decline' },
    );
    await client.call('add_alias', {
      name: 'u',
      host: '127.0.0.1',
      port: sshd.port,
      user: user.name,
      auth: 'password',
      accept_new_host_key: true,
    });
    // A root-owned folder the user may not write, holding a file the user may and one it may not.
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'shared.txt'), 'mode=a\n');
    await chmod(join(dir, 'shared.txt'), 0o666);
    await writeFile(join(dir, 'locked.txt'), 'mode=a\n');
    await chmod(join(dir, 'locked.txt'), 0o644);
    await chown(join(dir, 'locked.txt'), 0, 0);

    const locked = await client.call('edit_file', {
      alias: 'u',
      path: join(dir, 'locked.txt'),
      old_string: 'a',
      new_string: 'b',
    });
    expect(locked.structured?.error, locked.text).toBe('PERMISSION_DENIED');
    expect(locked.text).toContain('exec with sudo=true');

    const inode = (await stat(join(dir, 'shared.txt'))).ino;
    const shared = await client.call('edit_file', {
      alias: 'u',
      path: join(dir, 'shared.txt'),
      old_string: 'a',
      new_string: 'b',
    });
    expect(shared.isError, shared.text).toBe(false);
    expect(shared.structured?.written).toBe('in place');
    const after = await stat(join(dir, 'shared.txt'));
    expect([after.ino, after.uid, after.mode & 0o777]).toEqual([inode, 0, 0o666]);
    expect(await readFile(join(dir, 'shared.txt'), 'utf8')).toBe('mode=b\n');
    expect(await readdir(dir)).toEqual(['locked.txt', 'shared.txt']);
  });
});
