import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config-files/load-config.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { killAll, placesUnder, put, runCli } from './manage-cli.js';

/**
 * `switchboard import` and `switchboard reload` end to end: real child processes, other
 * clients' real config files, the kitchen-sink server.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-import-'));
});
afterEach(() => killAll());
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const newPlace = placesUnder(() => root);

const kitchen = { command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] };

describe('switchboard import', () => {
  it('keeps secrets out of the config and the dry run: ${VAR} references, values in the data dir', async () => {
    const place = await newPlace();
    const token = `ghp_${'s'.repeat(36)}`;
    const desktop = join(place.home, 'claude_desktop_config.json');
    await put(desktop, {
      mcpServers: {
        kitchen: { ...kitchen, env: { GITHUB_PERSONAL_ACCESS_TOKEN: token, LOG_LEVEL: 'info' } },
      },
    });
    const dry = await runCli(place, '--json', 'import', 'claude-desktop', '--path', desktop, '--dry-run');
    expect(dry.code, dry.err.join('\n')).toBe(0);
    expect(dry.out.join('\n')).not.toContain(token);
    const plan = JSON.parse(dry.out[0]!);
    expect(plan.imported[0].entry.env).toEqual({
      GITHUB_PERSONAL_ACCESS_TOKEN: '${KITCHEN_GITHUB_PERSONAL_ACCESS_TOKEN}',
      LOG_LEVEL: 'info',
    });
    expect(plan.secrets).toEqual([
      {
        server: 'kitchen',
        field: 'env.GITHUB_PERSONAL_ACCESS_TOKEN',
        variable: 'KITCHEN_GITHUB_PERSONAL_ACCESS_TOKEN',
      },
    ]);

    const done = await runCli(place, 'import', 'claude-desktop', '--path', desktop);
    expect(done.code, done.err.join('\n')).toBe(0);
    const secretsFile = join(place.data, 'secrets.env');
    expect(done.err.join('\n')).toContain(`Their values are in ${secretsFile}`);
    expect(await readFile(place.file, 'utf8')).not.toContain(token);
    expect(await readFile(place.file, 'utf8')).toContain('${KITCHEN_GITHUB_PERSONAL_ACCESS_TOKEN}');
    expect(await readFile(secretsFile, 'utf8')).toContain(`KITCHEN_GITHUB_PERSONAL_ACCESS_TOKEN="${token}"`);
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
    // The loader reads it: the reference resolves and the server starts (else ENV_VAR_MISSING).
    const list = await runCli(place, '--json', 'list');
    expect(JSON.parse(list.out[0]!).servers).toMatchObject([{ name: 'kitchen', state: 'connected' }]);
  }, 120_000);

  it('shows, skips existing names, writes, and reads --path', async () => {
    const place = await newPlace();
    await put(place.file, { servers: { kitchen } });
    await put(join(place.project, '.mcp.json'), {
      mcpServers: {
        kitchen: { command: 'other' },
        mem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { KEY: '${KEY}' } },
        'bad name': { type: 'http', url: 'https://h.example/mcp' },
      },
    });
    const cursorFile = join(place.home, 'elsewhere', 'cursor.json');
    await put(cursorFile, { mcpServers: { notes: { url: 'https://notes.example/mcp' } } });
    const before = await readFile(place.file, 'utf8');

    const [dry, missing, wrong] = await Promise.all([
      runCli(place, '--json', 'import', 'claude-code', '--dry-run'),
      runCli(place, '--json', 'import', 'windsurf'),
      runCli(place, 'import', 'emacs'),
    ]);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.out[0]!);
    expect(plan).toMatchObject({
      client: 'claude-code',
      files: [join(place.project, '.mcp.json')],
      target: place.file,
      dryRun: true,
    });
    expect(plan.imported.map((i: { name: string }) => i.name)).toEqual(['mem', 'bad-name']);
    expect(plan.imported[0].entry).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { KEY: '${KEY}' },
    });
    expect(plan.skipped).toEqual([
      {
        name: 'kitchen',
        source: `claude-code:${join(place.project, '.mcp.json')}`,
        reason: `already configured (${place.file})`,
      },
    ]);
    expect(plan.warnings.join('\n')).toContain('renamed "bad-name"');
    expect(await readFile(place.file, 'utf8')).toBe(before);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out[0]!).error.code).toBe('NOT_FOUND');
    expect(wrong.code).toBe(2);

    const [done, byPath] = await Promise.all([
      runCli(place, 'import', 'claude-code'),
      runCli(place, '--json', 'import', 'cursor', '--path', cursorFile, '--dry-run'),
    ]);
    expect(done.code).toBe(0);
    expect(done.out[0]).toMatch(/^NAME +ACTION +SERVER$/);
    expect(done.out.some((l) => /^mem +import +npx -y @modelcontextprotocol\/server-memory$/.test(l))).toBe(
      true,
    );
    expect(done.out.some((l) => /^kitchen +skip /.test(l))).toBe(true);
    expect(done.err).toContain(`Skipped "kitchen": already configured (${place.file}).`);
    expect(done.err.at(-1)).toBe(
      `Imported 2 server(s) from ${join(place.project, '.mcp.json')} into ${place.file}.`,
    );
    expect(JSON.parse(byPath.out[0]!)).toMatchObject({
      files: [cursorFile],
      imported: [
        { name: 'notes', source: `cursor:${cursorFile}`, entry: { url: 'https://notes.example/mcp' } },
      ],
    });
    expect((await loadConfigFile(place.file)).servers.map((s) => s.name)).toEqual([
      'kitchen',
      'mem',
      'bad-name',
    ]);
  });
});

describe('switchboard reload', () => {
  it('connects each server once and prints the states it ends in', async () => {
    const place = await newPlace();
    await put(place.file, {
      servers: {
        kitchen,
        broken: { command: join(place.project, 'no-such-server') },
        off: { ...kitchen, enabled: false },
      },
    });
    const [all, one, unknown] = await Promise.all([
      runCli(place, '--json', 'reload'),
      runCli(place, 'reload', 'kitchen'),
      runCli(place, 'reload', 'nope'),
    ]);
    expect(all.code).toBe(3);
    const states = JSON.parse(all.out[0]!).servers as {
      name: string;
      state: string;
      tools: number;
      error?: { code: string };
    }[];
    expect(states.map((s) => [s.name, s.state])).toEqual([
      ['broken', 'failed'],
      ['kitchen', 'connected'],
      ['off', 'disabled'],
    ]);
    expect(states[0]!.error?.code).toBe('SPAWN_FAILED');
    expect(states[1]!.tools).toBeGreaterThan(0);

    expect(one.code).toBe(0);
    expect(one.out[0]).toMatch(/^NAME +STATE +TRANSPORT +PROTOCOL +TOOLS +RESOURCES +PROMPTS$/);
    expect(one.out[1]).toMatch(new RegExp(`^kitchen +connected +stdio +\\S+ +${states[1]!.tools} +`));
    expect(unknown.code).toBe(2);
  });
});
