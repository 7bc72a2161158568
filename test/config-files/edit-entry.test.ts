import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeServerEntry, setServerEnabled } from '../../src/config-files/edit-entry.js';
import { loadConfigFile } from '../../src/config-files/load-config.js';

let dir: string;
let file: string;

const TEXT = `// team servers
{
  "$schema": "./schema.json",
  "servers": {
    // the notes
    "fs": { "command": "npx", "args": ["-y", "fs"] },
    "gh": {
      "url": "https://h/mcp",
      "enabled": true, // on
    },
  },
}
`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-edit-entry-'));
  file = join(dir, 'switchboard.json');
  await writeFile(file, TEXT);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('setServerEnabled', () => {
  it('writes "enabled": false and removes it again, keeping comments and the other entries', async () => {
    expect(await setServerEnabled(file, 'fs', false)).toBe(true);
    let text = await readFile(file, 'utf8');
    expect(text).toContain('// team servers');
    expect(text).toContain('// the notes');
    expect((await loadConfigFile(file)).servers.map((s) => [s.name, s.enabled])).toEqual([
      ['fs', false],
      ['gh', true],
    ]);
    expect(await setServerEnabled(file, 'fs', true)).toBe(true);
    text = await readFile(file, 'utf8');
    expect(text).not.toContain('"enabled": false');
    expect((await loadConfigFile(file)).servers.every((s) => s.enabled)).toBe(true);
  });

  it('is false for a name or a file that is not there, writing nothing', async () => {
    expect(await setServerEnabled(file, 'nope', false)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(TEXT);
    expect(await setServerEnabled(join(dir, 'missing.json'), 'fs', false)).toBe(false);
  });
});

describe('removeServerEntry', () => {
  it('removes one entry and keeps the rest of the file', async () => {
    expect(await removeServerEntry(file, 'gh')).toBe(true);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('// the notes');
    expect(text).toContain('"$schema": "./schema.json"');
    expect((await loadConfigFile(file)).servers.map((s) => s.name)).toEqual(['fs']);
    expect(await removeServerEntry(file, 'gh')).toBe(false);
  });

  it('refuses a file that does not parse without touching it', async () => {
    await writeFile(file, '{ "servers": { "fs": { "command": "x" } ');
    await expect(removeServerEntry(file, 'fs')).rejects.toThrow(/switchboard\.json:1:\d+/);
  });
});
