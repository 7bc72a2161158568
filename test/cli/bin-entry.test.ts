import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * bin/switchboard.js in a clone runs the compiled dist/ only while it is current (no file in
 * src/ newer than dist/.source-stamp), else the TypeScript source through tsx: a stale build
 * must never run. Checked on a miniature clone whose two entry points say which one ran.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
let clone: string;

const ENTRY = (which: string) =>
  `export async function main(argv) { console.log('${which}', argv.join(' ')); return 0; }\n`;

function runBin(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(clone, 'bin/switchboard.js'), 'list'], (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

async function setMtime(path: string, seconds: number): Promise<void> {
  const at = new Date(Date.now() + seconds * 1000);
  await utimes(path, at, at);
}

beforeAll(async () => {
  clone = await mkdtemp(join(tmpdir(), 'sb-bin-entry-'));
  await mkdir(join(clone, 'bin'));
  await mkdir(join(clone, 'src/cli'), { recursive: true });
  await mkdir(join(clone, 'dist/cli'), { recursive: true });
  await copyFile(join(repo, 'bin/switchboard.js'), join(clone, 'bin/switchboard.js'));
  await writeFile(join(clone, 'package.json'), '{"type":"module"}\n');
  await symlink(join(repo, 'node_modules'), join(clone, 'node_modules'));
  await writeFile(join(clone, 'src/cli/main.ts'), ENTRY('source').replace('(argv)', '(argv: string[])'));
  await writeFile(join(clone, 'dist/cli/main.js'), ENTRY('compiled'));
});

afterAll(async () => {
  await rm(clone, { recursive: true, force: true });
});

describe('bin/switchboard.js in a clone', () => {
  it('runs the source through tsx when nothing was compiled from it', async () => {
    expect(await runBin()).toBe('source list');
  });

  it('runs dist/ while no source is newer than its stamp', async () => {
    const stamp = join(clone, 'dist/.source-stamp');
    await writeFile(stamp, 'compiled\n');
    await setMtime(join(clone, 'src/cli/main.ts'), -60);
    await setMtime(stamp, -30);
    expect(await runBin()).toBe('compiled list');
  });

  it('runs the source again once any file in src/ is newer than the stamp', async () => {
    await mkdir(join(clone, 'src/core'), { recursive: true });
    const edited = join(clone, 'src/core/edited.ts');
    await writeFile(edited, 'export const x = 1;\n');
    await setMtime(edited, -10);
    expect(await runBin()).toBe('source list');
  });
});
