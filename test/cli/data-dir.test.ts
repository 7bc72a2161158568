import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DataDirProbe, resolveDataDir } from '../../src/cli/data-dir.js';

/**
 * One data dir for every verb: the flag, else the project's `.switchboard/` (where `start`
 * makes it), else `~/.switchboard` — chosen by data-dir.ts, unit-tested on a fake file system,
 * and seen end to end through `inbox` (the verb that must find what `start` made).
 */
function probeOf(dirs: readonly string[], files: readonly string[] = []): DataDirProbe {
  return {
    isDirectory: (path) => dirs.includes(path),
    exists: (path) => dirs.includes(path) || files.includes(path),
  };
}

describe('resolveDataDir', () => {
  const homeDir = '/home/ada';
  it('takes the flag first', () => {
    expect(resolveDataDir({ flag: '/x', projectDir: '/p', homeDir }, probeOf(['/p/.switchboard']))).toEqual({
      dir: '/x',
      from: 'flag',
    });
  });
  it("finds the project's .switchboard from the config folder or any folder below the project root", () => {
    const probe = probeOf(['/home/ada/clone/.switchboard'], ['/home/ada/clone/package.json']);
    for (const projectDir of ['/home/ada/clone', '/home/ada/clone/examples/demo']) {
      expect(resolveDataDir({ projectDir, homeDir }, probe)).toEqual({
        dir: '/home/ada/clone/.switchboard',
        from: 'project',
      });
    }
  });
  it('prefers the nearest one, and never walks past the project root', () => {
    const probe = probeOf(
      ['/srv/.switchboard', '/srv/app/sub/.switchboard', '/srv/app/.switchboard'],
      ['/srv/app/.git'],
    );
    expect(resolveDataDir({ projectDir: '/srv/app/sub', homeDir }, probe).dir).toBe(
      '/srv/app/sub/.switchboard',
    );
    expect(resolveDataDir({ projectDir: '/srv/app/other', homeDir }, probe).dir).toBe(
      '/srv/app/.switchboard',
    );
  });
  it('outside any project looks only in the config folder itself, then takes the home default', () => {
    const probe = probeOf(['/tmp/.switchboard']);
    expect(resolveDataDir({ projectDir: '/tmp/work', homeDir }, probe)).toEqual({
      dir: '/home/ada/.switchboard',
      from: 'home',
    });
  });
  it("with create (start) names the project root's folder even before it exists", () => {
    const probe = probeOf([], ['/home/ada/clone/package.json']);
    expect(resolveDataDir({ projectDir: '/home/ada/clone/examples', homeDir, create: true }, probe)).toEqual({
      dir: '/home/ada/clone/.switchboard',
      from: 'project',
    });
    expect(resolveDataDir({ projectDir: '/tmp/w', homeDir, create: true }, probeOf([])).dir).toBe(
      '/tmp/w/.switchboard',
    );
  });
});

describe('the data dir of a verb run without --data-dir', () => {
  const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const main = join(repo, 'src/cli/main.ts');
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sb-data-dir-'));
    await mkdir(join(root, 'home'));
    await mkdir(join(root, 'clone', 'examples', 'demo'), { recursive: true });
    await writeFile(join(root, 'clone', 'package.json'), '{}');
    await mkdir(join(root, 'elsewhere'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  function inbox(projectDir: string): Promise<{ code: number; error: { code: string; message: string } }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', main, '--json', '--config', projectDir, 'inbox'],
        { env: { ...process.env, HOME: join(root, 'home'), NO_COLOR: '1' }, cwd: repo },
        (error, stdout) => {
          const code = (error as { code?: number } | null)?.code ?? 0;
          resolve({
            code,
            error: stdout.trim() === '' ? { code: '', message: '' } : JSON.parse(stdout).error,
          });
        },
      );
    });
  }

  it("is the project's .switchboard/ that start made, seen from a folder inside the project", async () => {
    await mkdir(join(root, 'clone', '.switchboard'));
    const run = await inbox(join(root, 'clone', 'examples', 'demo'));
    expect(run.code).toBe(3);
    expect(run.error.message).toContain(
      `the data dir ${join(root, 'clone', '.switchboard')} (this project's)`,
    );
  });

  it('is ~/.switchboard outside a project, and the message says --data-dir', async () => {
    const run = await inbox(join(root, 'elsewhere'));
    expect(run.code).toBe(3);
    expect(run.error.message).toContain(`the data dir ${join(root, 'home', '.switchboard')} (the default`);
    expect(run.error.message).toContain('--data-dir DIR');
  });
});
