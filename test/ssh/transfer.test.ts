import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sshSuite } from './suite.js';

/**
 * upload and download against a real sshd's SFTP: scp/rsync landing rules (into a folder for a
 * trailing "/" or an existing folder, else the exact path), missing parents created, whole
 * trees both ways with symlinks skipped, byte-for-byte round trips, the local root held after
 * symlinks, and the size limit checked before anything is written.
 */
const suite = sshSuite({ withUser: false });
const setup = (env: Record<string, string> = {}) => suite.setup({ env });

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const rel = path.slice(dir.length + 1);
    if (entry.isDirectory()) out[`${rel}/`] = '';
    else if (entry.isFile()) out[rel] = (await readFile(path)).toString('base64');
    else out[rel] = 'other';
  }
  return out;
}

describe('upload and download', () => {
  it('lands a file into a folder for "dir/" or an existing folder, else at the exact path, and round-trips its bytes', async () => {
    const { client, world } = await setup();
    const data = randomBytes(300_000);
    await writeFile(join(world.localRoot, 'blob.bin'), data);
    const remote = world.remoteDir;
    await mkdir(join(remote, 'existing'));

    const into = await client.call('upload', {
      alias: 'me',
      local_path: 'blob.bin',
      remote_path: `${remote}/new-dir/`,
    });
    expect(into.isError, into.text).toBe(false);
    expect(into.structured).toMatchObject({
      destination: `${remote}/new-dir/blob.bin`,
      files: 1,
      bytes: 300_000,
    });
    await client.call('upload', { alias: 'me', local_path: 'blob.bin', remote_path: `${remote}/existing` });
    const exact = await client.call('upload', {
      alias: 'me',
      local_path: 'blob.bin',
      remote_path: `${remote}/a/b/renamed.bin`,
    });
    expect(exact.structured?.destination).toBe(`${remote}/a/b/renamed.bin`);
    for (const path of ['new-dir/blob.bin', 'existing/blob.bin', 'a/b/renamed.bin'])
      expect((await readFile(join(remote, path))).equals(data), path).toBe(true);

    const back = await client.call('download', {
      alias: 'me',
      remote_path: `${remote}/a/b/renamed.bin`,
      local_path: 'got/',
    });
    expect(back.isError, back.text).toBe(false);
    expect((await readFile(join(world.localRoot, 'got', 'renamed.bin'))).equals(data)).toBe(true);
    await client.call('download', {
      alias: 'me',
      remote_path: `${remote}/existing/blob.bin`,
      local_path: 'copy.bin',
    });
    expect((await readFile(join(world.localRoot, 'copy.bin'))).equals(data)).toBe(true);
    // Over an existing file: replaced whole, no partial file left beside it.
    await client.call('download', {
      alias: 'me',
      remote_path: `${remote}/existing/blob.bin`,
      local_path: 'copy.bin',
    });
    expect((await readdir(world.localRoot)).sort()).toEqual(['blob.bin', 'copy.bin', 'got']);
  });

  it('copies whole trees both ways, skipping symlinks', async () => {
    const { client, world } = await setup();
    const src = join(world.localRoot, 'site');
    await mkdir(join(src, 'css', 'deep'), { recursive: true });
    await writeFile(join(src, 'index.html'), '<h1>hi</h1>');
    await writeFile(join(src, 'css', 'a.css'), 'body{}');
    await writeFile(join(src, 'css', 'deep', 'b.bin'), randomBytes(5000));
    await symlink('/etc/passwd', join(src, 'leak'));
    const up = await client.call('upload', {
      alias: 'me',
      local_path: 'site',
      remote_path: `${world.remoteDir}/`,
    });
    expect(up.isError, up.text).toBe(false);
    expect(up.structured).toMatchObject({ files: 3, directories: 3, skipped: ['leak'] });
    const expected = await tree(src);
    delete expected.leak;
    expect(await tree(join(world.remoteDir, 'site'))).toEqual(expected);

    const down = await client.call('download', {
      alias: 'me',
      remote_path: `${world.remoteDir}/site`,
      local_path: 'mirror',
    });
    expect(down.isError, down.text).toBe(false);
    expect(await tree(join(world.localRoot, 'mirror'))).toEqual(expected);
  });

  it('refuses local paths outside the local root, also through a symlink, and a missing remote path', async () => {
    const { client, world } = await setup();
    await writeFile(join(world.home, 'secret.txt'), 'x');
    await symlink(world.home, join(world.localRoot, 'out'));
    for (const local_path of ['../home/secret.txt', join(world.home, 'secret.txt'), 'out/secret.txt']) {
      const up = await client.call('upload', {
        alias: 'me',
        local_path,
        remote_path: `${world.remoteDir}/x`,
      });
      expect(up.structured?.error, local_path).toBe('PATH_OUTSIDE_ROOT');
    }
    await writeFile(join(world.remoteDir, 'r.txt'), 'remote');
    const down = await client.call('download', {
      alias: 'me',
      remote_path: `${world.remoteDir}/r.txt`,
      local_path: 'out/r.txt',
    });
    expect(down.structured?.error).toBe('PATH_OUTSIDE_ROOT');
    await expect(stat(join(world.home, 'r.txt'))).rejects.toThrow();
    const missing = await client.call('download', {
      alias: 'me',
      remote_path: `${world.remoteDir}/nope`,
      local_path: 'n',
    });
    expect(missing.structured?.error).toBe('TRANSFER_FAILED');
    // A remote parent that is a file, not a folder.
    await writeFile(join(world.localRoot, 'f.txt'), 'f');
    const blocked = await client.call('upload', {
      alias: 'me',
      local_path: 'f.txt',
      remote_path: `${world.remoteDir}/r.txt/f.txt`,
    });
    expect(blocked.structured?.error, blocked.text).toBe('TRANSFER_FAILED');
  });

  it('refuses a transfer above SSH_MCP_TRANSFER_MAX before writing anything', async () => {
    const { client, world } = await setup({ SSH_MCP_TRANSFER_MAX: '1000' });
    await writeFile(join(world.localRoot, 'big.bin'), randomBytes(2000));
    const up = await client.call('upload', {
      alias: 'me',
      local_path: 'big.bin',
      remote_path: `${world.remoteDir}/big.bin`,
    });
    expect(up.structured?.error).toBe('LIMIT');
    await expect(stat(join(world.remoteDir, 'big.bin'))).rejects.toThrow();
    await mkdir(join(world.remoteDir, 'two'));
    await writeFile(join(world.remoteDir, 'two', 'a'), randomBytes(600));
    await writeFile(join(world.remoteDir, 'two', 'b'), randomBytes(600));
    const down = await client.call('download', {
      alias: 'me',
      remote_path: `${world.remoteDir}/two`,
      local_path: 'two',
    });
    expect(down.structured?.error).toBe('LIMIT');
    await expect(stat(join(world.localRoot, 'two'))).rejects.toThrow();
  });
});
