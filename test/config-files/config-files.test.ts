import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claudeDesktopConfigPath,
  discoverImports,
  importInto,
} from '../../src/config-files/discover-imports.js';
import { loadConfig } from '../../src/config-files/load-config.js';
import { writeServerEntries } from '../../src/config-files/write-entries.js';
import type { SwitchboardError } from '../../src/core/errors.js';

let root: string;
let home: string;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'switchboard-config-'));
  home = join(root, 'home');
  project = join(root, 'project');
  await mkdir(home);
  await mkdir(project);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

describe('loadConfig', () => {
  it('is empty when neither file exists', async () => {
    const loaded = await loadConfig({ projectDir: project, homeDir: home });
    expect(loaded.servers).toEqual([]);
    expect(loaded.files.user).toEqual({ path: join(home, '.switchboard', 'config.json'), found: false });
  });

  it('merges user and project files, the project winning', async () => {
    await put(
      join(home, '.switchboard', 'config.json'),
      '{ "servers": { "memory": { "command": "npx" }, "gh": { "command": "gh-mcp" } } }',
    );
    await put(
      join(project, 'switchboard.json'),
      '// project\n{ "servers": { "gh": { "url": "https://h/mcp", }, } }',
    );
    const loaded = await loadConfig({ projectDir: project, homeDir: home });
    expect(loaded.servers.map((s) => [s.name, s.transport.kind])).toEqual([
      ['memory', 'stdio'],
      ['gh', 'http'],
    ]);
    expect(loaded.files.project.found).toBe(true);
  });

  it('names the file of an invalid entry and fails to read a directory', async () => {
    await put(join(project, 'switchboard.json'), '{ "servers": { "x": { "comand": "npx" } } }');
    await expect(loadConfig({ projectDir: project, homeDir: home })).rejects.toThrow(
      `${join(project, 'switchboard.json')}: server "x", field "comand": unknown field "comand". Did you mean "command"?`,
    );
    await rm(join(project, 'switchboard.json'));
    await mkdir(join(project, 'switchboard.json'));
    const error = await loadConfig({ projectDir: project, homeDir: home }).catch((e: unknown) => e);
    expect((error as SwitchboardError).code).toBe('CONFIG_READ_FAILED');
  });
});

describe('writeServerEntries', () => {
  it('creates the file and its directory', async () => {
    const file = join(home, '.switchboard', 'config.json');
    const result = await writeServerEntries(file, [{ name: 'fs', command: 'npx', args: ['-y', 'fs-mcp'] }]);
    expect(result).toEqual({ added: ['fs'], updated: [], skipped: [] });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      servers: { fs: { command: 'npx', args: ['-y', 'fs-mcp'] } },
    });
  });

  it('keeps comments, other entries and $schema; updates or keeps existing names', async () => {
    const file = join(project, 'switchboard.json');
    await put(
      file,
      `{
  "$schema": "./schema/switchboard.schema.json",
  // the team's servers
  "servers": {
    "a": { "command": "x" }, // keep me
    "b": { "command": "old" },
  },
}
`,
    );
    const result = await writeServerEntries(file, [
      { name: 'b', command: 'new' },
      { name: 'c', url: 'https://h/mcp' },
    ]);
    expect(result).toEqual({ added: ['c'], updated: ['b'], skipped: [] });
    const text = await readFile(file, 'utf8');
    expect(text).toContain("// the team's servers");
    expect(text).toContain('"a": { "command": "x" }, // keep me');
    expect(text).toContain('"$schema": "./schema/switchboard.schema.json"');
    const loaded = await loadConfig({ projectDir: project, homeDir: home });
    expect(
      loaded.servers.map((s) => [s.name, s.transport.kind === 'stdio' ? s.transport.command : 'http']),
    ).toEqual([
      ['a', 'x'],
      ['b', 'new'],
      ['c', 'http'],
    ]);
    const kept = await writeServerEntries(file, [{ name: 'a', command: 'other' }], { existing: 'keep' });
    expect(kept).toEqual({ added: [], updated: [], skipped: ['a'] });
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('refuses an invalid entry or an unparsable file without touching the file', async () => {
    const file = join(project, 'switchboard.json');
    await put(file, '{ "servers": { "a": { "command": "x" } ');
    await expect(writeServerEntries(file, [{ name: 'b', command: 'y' }])).rejects.toThrow(
      /a closing "}" is missing/,
    );
    await expect(writeServerEntries(file, [{ name: 'b' }])).rejects.toThrow(/neither "command" nor "url"/);
    expect(await readFile(file, 'utf8')).toBe('{ "servers": { "a": { "command": "x" } ');
  });
});

describe('discoverImports and importInto', () => {
  it('finds the files that exist, per platform, and imports without overwriting', async () => {
    const desktop = claudeDesktopConfigPath({ homeDir: home, platform: 'darwin' });
    expect(desktop).toBe(
      join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    );
    expect(
      claudeDesktopConfigPath({ homeDir: home, platform: 'win32', appData: join(root, 'roaming') }),
    ).toBe(join(root, 'roaming', 'Claude', 'claude_desktop_config.json'));
    expect(claudeDesktopConfigPath({ homeDir: home, platform: 'linux' })).toBe(
      join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    );
    await put(desktop, '{ "mcpServers": { "fs": { "command": "npx" }, "memory": { "command": "mem" } } }');
    await put(
      join(project, '.mcp.json'),
      '{ "mcpServers": { "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" } } }',
    );
    await put(join(home, '.codex', 'config.toml'), '[mcp_servers.broken\n');
    const found = await discoverImports({ projectDir: project, homeDir: home, platform: 'darwin' });
    expect(found.map((f) => [f.client, f.scope, f.entries.length, f.error !== undefined])).toEqual([
      ['claude-desktop', 'user', 2, false],
      ['claude-code', 'project', 1, false],
      ['codex', 'user', 0, true],
    ]);

    const ours = join(project, 'switchboard.json');
    await put(ours, '{ "servers": { "fs": { "command": "mine" } } }');
    const result = await importInto(ours, found[0]!);
    expect(result).toEqual({ added: ['memory'], updated: [], skipped: ['fs'], warnings: [] });
    const overwritten = await importInto(ours, found[0]!, { overwrite: true });
    expect(overwritten.updated).toEqual(['fs', 'memory']);
    const loaded = await loadConfig({ projectDir: project, homeDir: home });
    expect(loaded.servers.map((s) => s.name)).toEqual(['fs', 'memory']);
    expect((await stat(ours)).isFile()).toBe(true);
  });
});
