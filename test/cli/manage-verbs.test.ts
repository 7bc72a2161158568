import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config-files/load-config.js';
import { openStore } from '../../src/storage/open-store.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { killAll, placesUnder, put, runCli } from './manage-cli.js';

/**
 * The setup verbs end to end: `add`, `remove`, `enable` and `disable` as real child processes
 * against real config files and a real store (import and reload: import-reload.test.ts).
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-manage-'));
});
afterEach(() => killAll());
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const newPlace = placesUnder(() => root);

const kitchen = { command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] };

describe('switchboard add', () => {
  it('writes a command or a URL entry, refuses duplicates and bad entries, replaces with --force', async () => {
    const [one, two] = [await newPlace(), await newPlace()];
    const [added, web] = await Promise.all([
      runCli(one, 'add', 'kitchen', '--env', 'MODE=test', '--', kitchen.command, ...kitchen.args),
      runCli(
        two,
        '--json',
        'add',
        'web',
        'http://127.0.0.1:9/mcp',
        '--header',
        'Authorization=Bearer ${TOKEN}',
      ),
    ]);
    expect(added.code).toBe(0);
    expect(added.err).toEqual([
      `Added "kitchen" to ${one.file}: ${[kitchen.command, ...kitchen.args].join(' ')}`,
      'Check it with: switchboard doctor kitchen',
    ]);
    expect((await loadConfigFile(one.file)).servers.map((s) => [s.name, s.transport])).toEqual([
      ['kitchen', { kind: 'stdio', command: kitchen.command, args: kitchen.args, env: { MODE: 'test' } }],
    ]);
    expect(web.code).toBe(0);
    expect(JSON.parse(web.out[0]!)).toEqual({
      server: 'web',
      action: 'added',
      file: two.file,
      entry: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      notes: [],
    });

    const before = await readFile(two.file, 'utf8');
    const [duplicate, invalid, usage] = await Promise.all([
      runCli(two, '--json', 'add', 'web', 'http://127.0.0.1:10/mcp'),
      runCli(two, '--json', 'add', 'other', 'ftp://h/mcp'),
      runCli(two, 'add', 'lonely', '--bogus'),
    ]);
    expect(duplicate.code).toBe(2);
    expect(JSON.parse(duplicate.out[0]!).error).toEqual({
      code: 'INVALID_ARGUMENT',
      message: `"web" is already in ${two.file}. Pass --force to replace it, or choose another name.`,
    });
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.out[0]!).error.code).toBe('CONFIG_INVALID');
    expect(JSON.parse(invalid.out[0]!).error.message).toContain('server "other", field "url"');
    expect(usage.code).toBe(2);
    expect(usage.err[0]).toContain("Unknown option '--bogus'");
    expect(await readFile(two.file, 'utf8')).toBe(before);

    const [forced, user] = await Promise.all([
      runCli(two, '--json', 'add', 'web', 'http://127.0.0.1:10/mcp', '--force'),
      runCli(two, '--json', 'add', '--user', 'web', 'http://127.0.0.1:11/mcp'),
    ]);
    expect(JSON.parse(forced.out[0]!)).toMatchObject({ server: 'web', action: 'replaced' });
    expect(JSON.parse(user.out[0]!)).toMatchObject({ action: 'added', file: two.userFile });
    expect(JSON.parse(user.out[0]!).notes[0]).toContain(`${two.file} also has "web"`);
    expect((await loadConfigFile(two.file)).servers.map((s) => s.transport)).toEqual([
      { kind: 'http', url: 'http://127.0.0.1:10/mcp', headers: {} },
    ]);
    expect((await loadConfigFile(two.userFile)).servers.map((s) => s.name)).toEqual(['web']);
    // Its CLI runs, some in parallel, took over 30 s with the whole suite on two cores.
  }, 90_000);
});

describe('switchboard enable / disable', () => {
  it('switches file entries in their file and registered servers in the store', async () => {
    const place = await newPlace();
    await put(
      place.file,
      `{\n  // ours\n  "servers": {\n    "kitchen": ${JSON.stringify(kitchen)},\n    "web": { "url": "http://127.0.0.1:9/mcp" }\n  }\n}\n`,
    );
    const disabled = await runCli(place, 'disable', 'web');
    expect(disabled.code).toBe(0);
    expect(disabled.err).toEqual([`Disabled "web" in ${place.file}.`]);
    expect(await readFile(place.file, 'utf8')).toContain('// ours');
    expect((await loadConfigFile(place.file)).servers.map((s) => [s.name, s.enabled])).toEqual([
      ['kitchen', true],
      ['web', false],
    ]);
    const again = await runCli(place, '--json', 'disable', 'web');
    expect(JSON.parse(again.out[0]!)).toEqual({
      server: 'web',
      enabled: false,
      changed: false,
      where: 'file',
      file: place.file,
    });

    // The host's own switch of a file entry (a copy of the entry in the store) and a registration.
    const store = await openStore(join(place.data, 'switchboard.db'));
    await store.servers.upsert({
      name: 'kitchen',
      entry: { command: 'old' },
      enabled: false,
      source: 'toggle',
    });
    await store.servers.upsert({
      name: 'reg',
      entry: { url: 'http://127.0.0.1:9/r' },
      enabled: true,
      source: 'api',
    });
    await store.close();
    const [enabled, regOff, unknown] = await Promise.all([
      runCli(place, '--json', 'enable', 'kitchen'),
      runCli(place, '--json', 'disable', 'reg'),
      runCli(place, 'enable', 'nope'),
    ]);
    expect(JSON.parse(again.out[0]!)).toEqual({
      server: 'web',
      enabled: false,
      changed: false,
      where: 'file',
      file: place.file,
    });
    expect(JSON.parse(enabled.out[0]!)).toEqual({
      server: 'kitchen',
      enabled: true,
      changed: true,
      where: 'file',
      file: place.file,
    });
    expect(JSON.parse(regOff.out[0]!)).toEqual({
      server: 'reg',
      enabled: false,
      changed: true,
      where: 'store',
    });
    expect(unknown.code).toBe(2);
    expect(unknown.err[0]).toContain('No server named "nope"');
    const after = await openStore(join(place.data, 'switchboard.db'));
    expect(await after.servers.get('kitchen')).toBeUndefined();
    expect((await after.servers.get('reg'))?.enabled).toBe(false);
    await after.close();
  });
});

describe('switchboard remove', () => {
  it('removes from the file that holds it and from the store, and says what is left', async () => {
    const place = await newPlace();
    await put(place.file, { servers: { kitchen, web: { url: 'http://127.0.0.1:9/mcp' } } });
    await put(place.userFile, { servers: { web: { url: 'http://127.0.0.1:9/user' } } });
    const store = await openStore(join(place.data, 'switchboard.db'));
    await store.servers.upsert({
      name: 'reg',
      entry: { url: 'http://127.0.0.1:9/r' },
      enabled: true,
      source: 'api',
    });
    await store.close();

    const removed = await runCli(place, 'remove', 'web');
    expect(removed.code).toBe(0);
    expect(removed.err).toEqual([
      `Removed "web" from ${place.file}.`,
      `Note: ${place.userFile} still has "web", which is used from now on; "--user" removes it.`,
    ]);
    const [user, reg, unknown] = await Promise.all([
      runCli(place, '--json', 'remove', 'web'),
      runCli(place, '--json', 'remove', 'reg'),
      runCli(place, '--json', 'remove', 'nope'),
    ]);
    expect(JSON.parse(user.out[0]!)).toEqual({
      server: 'web',
      removed: { file: place.userFile, store: false },
      notes: [],
    });
    expect(JSON.parse(reg.out[0]!)).toEqual({
      server: 'reg',
      removed: { file: null, store: true },
      notes: [],
    });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.out[0]!).error.code).toBe('NOT_FOUND');
    expect((await loadConfigFile(place.file)).servers.map((s) => s.name)).toEqual(['kitchen']);
    expect((await loadConfigFile(place.userFile)).servers).toEqual([]);
  });
});
