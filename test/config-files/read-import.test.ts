import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_CLIENTS, readImportFile } from '../../src/config-files/read-import.js';
import type { SwitchboardError } from '../../src/core/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-read-import-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readImportFile', () => {
  it('reads a file with the named client importer, whatever its name', async () => {
    const cursor = join(dir, 'anything.json');
    await writeFile(
      cursor,
      JSON.stringify({
        mcpServers: { fs: { command: 'npx', args: ['${workspaceFolder}/x', '${env:TOKEN}'] } },
      }),
    );
    const result = await readImportFile('cursor', cursor, { projectDir: '/proj' });
    expect(result.entries.map((e) => [e.source, e.entry])).toEqual([
      [`cursor:${cursor}`, { name: 'fs', command: 'npx', args: ['/proj/x', '${TOKEN}'] }],
    ]);

    const vscode = join(dir, 'mcp.json');
    await writeFile(vscode, JSON.stringify({ servers: { web: { type: 'http', url: 'https://h/mcp' } } }));
    expect((await readImportFile('vscode', vscode, { projectDir: '/proj' })).entries[0]?.entry).toEqual({
      name: 'web',
      transport: 'http',
      url: 'https://h/mcp',
    });

    const codex = join(dir, 'config.toml');
    await writeFile(codex, '[mcp_servers.mem]\ncommand = "npx"\nargs = ["-y", "mem"]\n');
    expect((await readImportFile('codex', codex, { projectDir: '/proj' })).entries[0]?.entry).toMatchObject({
      name: 'mem',
      command: 'npx',
    });
    expect(IMPORT_CLIENTS).toHaveLength(6);
  });

  it('is NOT_FOUND for a missing file and CONFIG_INVALID for one that does not parse', async () => {
    const missing = await readImportFile('claude-desktop', join(dir, 'nope.json'), { projectDir: dir }).catch(
      (e: SwitchboardError) => e,
    );
    expect((missing as SwitchboardError).code).toBe('NOT_FOUND');
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ "mcpServers": ');
    const invalid = await readImportFile('windsurf', broken, { projectDir: dir }).catch(
      (e: SwitchboardError) => e,
    );
    expect((invalid as SwitchboardError).code).toBe('CONFIG_INVALID');
  });
});
