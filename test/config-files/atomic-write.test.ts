import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// rename is the step that makes the new text visible; failing it must leave the old file.
const failRename = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...original,
    rename: async (from: string, to: string) => {
      if (failRename.on)
        throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
      return original.rename(from, to);
    },
  };
});

const { writeFileAtomic } = await import('../../src/config-files/atomic-write.js');
const { writeServerEntries } = await import('../../src/config-files/write-entries.js');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-atomic-'));
  failRename.on = false;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('keeps the existing file and leaves no temporary file when the write fails', async () => {
    const file = join(dir, 'switchboard.json');
    const before = '// mine\n{ "servers": { "a": { "command": "x" } } }\n';
    await writeFile(file, before);
    failRename.on = true;
    const error = await writeServerEntries(file, [{ name: 'b', command: 'y' }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG_WRITE_FAILED' });
    expect((error as Error).message).toMatch(/The file was left unchanged/);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['switchboard.json']);
  });

  it('replaces the content and keeps the permission bits', async () => {
    const file = join(dir, 'config.json');
    await writeFile(file, 'old', { mode: 0o600 });
    await writeFileAtomic(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['config.json']);
  });
});
