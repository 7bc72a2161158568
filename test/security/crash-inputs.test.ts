import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/app/switchboard.js';
import { main } from '../../src/cli/main.js';
import { loadConfig, loadConfigFile } from '../../src/config-files/load-config.js';
import { writeServerEntries } from '../../src/config-files/write-entries.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { parseClaudeDesktopConfig } from '../../src/core/config/imports/claude-desktop.js';
import { isServerName } from '../../src/core/config/server-name.js';
import { isSwitchboardError, type SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { startHttpGateway } from '../../src/gateway/http-gateway.js';
import { runManagementTool } from '../../src/host/management/management-tools.js';
import { openStore } from '../../src/storage/open-store.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { loginCookie } from '../gateway/api/api-harness.js';
import { quietLog } from '../gateway/modern-client.js';
import { catalogHas } from '../helpers/wait.js';
import { answerTo, killJsonlHosts, type Message, startJsonlHost } from './jsonl-host.js';

/**
 * Inputs that used to end the process, and their whole class: names no file system, URL or
 * tool name can hold, through every way an entry arrives; config files nested thousands deep,
 * huge, not UTF-8, with keys given twice or `__proto__`; registrations stored by an older
 * version or damaged, which must be shown as failed at every later start, never crash it; and
 * one invalid entry among good ones, which must not stop a daemon.
 */
let root: string;
let places = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-crash-'));
});
afterAll(async () => {
  killJsonlHosts();
  await rm(root, { recursive: true, force: true });
});

/** A fresh project dir, data dir and HOME. */
async function place() {
  const base = join(root, `p${places++}`);
  const p = { project: join(base, 'project'), data: join(base, 'data'), home: join(base, 'home') };
  await mkdir(p.project, { recursive: true });
  await mkdir(p.home, { recursive: true });
  return { ...p, file: join(p.project, 'switchboard.json') };
}

/** Runs the CLI in this process (HOME pointed at the place's); its output lines and exit code. */
async function cli(p: { project: string; data: string; home: string }, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const home = process.env.HOME;
  process.env.HOME = p.home;
  try {
    const code = await main(['--config', p.project, '--data-dir', p.data, ...args], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      stdin: process.stdin,
    });
    return { code, out, err, all: [...out, ...err].join('\n') };
  } finally {
    process.env.HOME = home;
  }
}

function rejection(run: () => unknown): SwitchboardError {
  try {
    run();
  } catch (error) {
    if (isSwitchboardError(error)) return error;
    throw new Error(`expected a SwitchboardError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a rejection');
}

const kitchen = { command: process.execPath, args: [kitchenSinkBin] };
const LONG = 'a'.repeat(300);
/** Names a file name, a URL path, a tool name or a command line cannot take as they are. */
const BAD_NAMES = [
  LONG,
  'x'.repeat(65),
  '../etc',
  'a/b',
  '.',
  '..',
  '-rf',
  'a b',
  'é',
  '__proto__',
  'a\u0000b',
];

describe('server names are held to one rule wherever an entry arrives', () => {
  it('normalize, a config file and an import refuse or repair every bad name', async () => {
    for (const name of BAD_NAMES) {
      const error = rejection(() => normalizeServerEntry({ name, command: 'x' }, { file: 'api' }));
      expect(error.code, name).toBe('CONFIG_INVALID');
      expect(error.details.field, name).toBe('name');
      expect(error.message, name).toContain('1 to 64 characters');
      // The message stays one short line however long the name.
      expect(error.message.length, name).toBeLessThan(400);
    }
    const p = await place();
    for (const name of BAD_NAMES.filter((n) => n !== '__proto__')) {
      await writeFile(p.file, JSON.stringify({ servers: { [name]: kitchen } }));
      const error = await loadConfigFile(p.file).catch((e: unknown) => e as SwitchboardError);
      expect(error, name).toMatchObject({ code: 'CONFIG_INVALID', details: { file: p.file, field: 'name' } });
    }
    const foreign = JSON.stringify({ mcpServers: Object.fromEntries(BAD_NAMES.map((n) => [n, kitchen])) });
    const { entries } = parseClaudeDesktopConfig(foreign, '/c/claude_desktop_config.json');
    expect(entries.length).toBeGreaterThan(5);
    for (const { entry } of entries) expect(isServerName(entry.name), entry.name).toBe(true);
  });

  it('switchboard add refuses a long name and writes nothing', async () => {
    const p = await place();
    const added = await cli(p, 'add', LONG, '--', 'node', 'x.js');
    expect(added.code).toBe(2);
    expect(added.all).toMatch(/field "name": the name has 300 characters, more than 64/);
    await expect(readFile(p.file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("the API and an agent's register_mcp refuse it; the host goes on", async () => {
    const p = await place();
    const switchboard = await createSwitchboard({
      projectDir: p.project,
      homeDir: p.home,
      dataDir: p.data,
      governance: { mode: 'full-auto' },
    });
    const gateway = await startHttpGateway(switchboard.host, resolveGateway({ port: 0 }), { log: quietLog });
    try {
      const base = new URL(gateway.url).origin;
      const signedIn = loginCookie(gateway);
      const { csrfToken } = (await (await fetch(`${base}/api/session`, { headers: signedIn })).json()) as {
        csrfToken: string;
      };
      for (const name of [LONG, '../x', 'a b']) {
        const response = await fetch(`${base}/api/servers`, {
          method: 'POST',
          headers: { ...signedIn, 'content-type': 'application/json', 'x-switchboard-csrf': csrfToken },
          body: JSON.stringify({ name, entry: kitchen }),
        });
        expect(response.status, name).toBe(400);
        expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
          '1 to 64 characters',
        );
      }
      const result = await runManagementTool(
        switchboard.host,
        'register_mcp',
        { name: LONG, ...kitchen },
        { session: 'agent-1', source: 'agent' },
      );
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('the name has 300 characters');
      expect(switchboard.host.servers()).toEqual([]);
    } finally {
      await gateway.close();
      await switchboard.close();
    }
  });

  it('JSON lines: mcp_set with a long name is an error line, and the host keeps answering', async () => {
    const p = await place();
    const host = startJsonlHost(p.project, p.data, p.home);
    await host.next('the first list', (m) => m.type === 'mcp_servers');
    host.send({ op: 'mcp_set', id: 'long', server: { name: LONG, ...kitchen } });
    const error = await host.next('the error', answerTo('long'));
    expect(error).toMatchObject({ type: 'error', error: { code: 'INVALID_FIELD' } });
    expect(JSON.stringify(error)).toContain('server.name');
    host.send({ op: 'mcp_list', id: 'after' });
    expect(await host.next('the list after', answerTo('after'))).toMatchObject({
      type: 'mcp_servers',
      servers: [],
    });
    expect(await host.close()).toBe(0);
  });
});

describe('config files that are hostile or broken end in an error naming the file', () => {
  const deep = (n: number, open: string, close: string, inner = '1') =>
    `{"servers":{"a":{"command":"x","args":${open.repeat(n)}${inner}${close.repeat(n)}}}}`;
  const cases: Record<string, string | Buffer> = {
    'arrays 5,000 deep': deep(5000, '[', ']'),
    'objects 100,000 deep': `${'{"x":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    'a gateway section 20,000 deep': `{"gateway":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    'unclosed nesting': '['.repeat(50_000),
    'a file of 5 MiB': `{"servers":{"a":{"command":"x","description":"${'d'.repeat(5 * 1024 * 1024)}"}}}`,
    'bytes that are not UTF-8': Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    'NUL bytes': '{"servers":{"a\u0000":{"command":"x"}}}',
    'a key given twice': '{"servers":{"a":{"command":"x"},"a":{"url":"https://h/mcp"}}}',
    'a __proto__ server': '{"servers":{"__proto__":{"command":"x"}}}',
    'a __proto__ file': '{"__proto__":{"servers":{}}}',
    'a __proto__ env': '{"servers":{"a":{"command":"x","env":{"__proto__":"y"}}}}',
    'a number for a string': '{"servers":{"a":{"command":1}}}',
    'an infinite timeout': '{"servers":{"a":{"command":"x","timeouts":{"connect":1e400}}}}',
    'a timeout past what a timer holds': '{"servers":{"a":{"command":"x","timeouts":{"startup":3000000}}}}',
    'a string of a million characters as a key': `{"servers":{"a":{"command":"x","${'k'.repeat(1_000_000)}":1}}}`,
    'an array for the servers': '{"servers":[]}',
    'a string for the file': '"servers"',
    'random bytes': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
  };

  it.each(Object.entries(cases))('%s', async (_what, text) => {
    const p = await place();
    await writeFile(p.file, text);
    const error = await loadConfigFile(p.file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSwitchboardError(error, 'CONFIG_INVALID', 'CONFIG_READ_FAILED'), String(error)).toBe(true);
    expect((error as SwitchboardError).message).toContain(p.file);
    expect((error as SwitchboardError).message.length).toBeLessThan(1000);
  });

  it('a directory or a FIFO in place of the file is CONFIG_READ_FAILED, not a hang', async () => {
    const p = await place();
    await mkdir(p.file);
    await expect(loadConfigFile(p.file)).rejects.toMatchObject({ code: 'CONFIG_READ_FAILED' });
    const q = await place();
    execFileSync('mkfifo', [q.file]);
    await expect(loadConfigFile(q.file)).rejects.toMatchObject({
      code: 'CONFIG_READ_FAILED',
      message: expect.stringContaining('not a regular file'),
    });
  });

  it('the CLI reports a deeply nested file with its name and exit 2, without a stack trace', async () => {
    const p = await place();
    await writeFile(p.file, deep(5000, '[', ']'));
    const listed = await cli(p, 'list');
    expect(listed.code).toBe(2);
    expect(listed.all).toContain(`${p.file}:1:`);
    expect(listed.all).toContain('nest deeper than 64 levels');
    expect(listed.all).not.toMatch(/RangeError|\n\s+at /);
  });
});

describe('a registration that cannot start is shown failed, at every start', () => {
  it('an older or damaged registration is failed with its message; the others run; it can be removed', async () => {
    const p = await place();
    await mkdir(p.data, { recursive: true });
    const dbFile = join(p.data, 'switchboard.db');
    const store = await openStore(dbFile);
    // What an older version (no name rule, other fields) or a damaged row left in the store.
    await store.servers.upsert({ name: LONG, entry: kitchen, enabled: true, source: 'jsonl' });
    await store.servers.upsert({
      name: 'old',
      entry: { ...kitchen, retired: 1 },
      enabled: true,
      source: 'api',
    });
    await store.servers.upsert({ name: 'damaged', entry: {}, enabled: true, source: 'agent' });
    await store.servers.upsert({ name: 'good', entry: kitchen, enabled: true, source: 'api' });
    await store.close();
    const db = new Database(dbFile);
    db.prepare('UPDATE servers SET entry = ? WHERE name = ?').run('{"command": "x", "ar', 'damaged');
    db.close();

    for (let start = 0; start < 2; start++) {
      const switchboard: Switchboard = await createSwitchboard({
        projectDir: p.project,
        homeDir: p.home,
        dataDir: p.data,
      });
      try {
        await catalogHas(switchboard.host, 'mcp__good__echo');
        const byName = new Map(switchboard.host.servers().map((s) => [s.name, s]));
        expect(byName.get(LONG)).toMatchObject({
          state: 'failed',
          source: 'jsonl',
          error: { code: 'CONFIG_INVALID', message: expect.stringContaining('the name has 300 characters') },
        });
        expect(byName.get('old')?.error?.message).toMatch(
          /unknown field "retired".*remove it \(switchboard remove old\)/,
        );
        expect(byName.get('damaged')).toMatchObject({
          state: 'failed',
          error: { message: expect.stringContaining('not an object (it is damaged)') },
        });
        expect(byName.get('good')?.state).toBe('connected');
      } finally {
        await switchboard.close();
      }
    }

    // The JSON-lines host starts on the same store, lists them failed and removes one.
    const host = startJsonlHost(p.project, p.data, p.home);
    const first = await host.next(
      'a list with good connected',
      (m) => serverOf(m, 'good')?.state === 'connected',
    );
    expect(serverOf(first, 'old')).toMatchObject({ state: 'failed', error: { code: 'CONFIG_INVALID' } });
    host.send({ op: 'mcp_remove', id: 'rm', name: LONG });
    const removed = await host.next('the removal', answerTo('rm'));
    expect(serverOf(removed, LONG)).toBeUndefined();
    expect(await host.close()).toBe(0);
  });
});

function serverOf(m: Message, name: string): Record<string, unknown> | undefined {
  return m.type === 'mcp_servers'
    ? (m.servers as { name: string }[]).find((s) => s.name === name)
    : undefined;
}

describe('one invalid entry among good ones', () => {
  it('a daemon serves the good ones and shows the bad one failed with its message (API, list)', async () => {
    const p = await place();
    await writeFile(
      p.file,
      `// two good servers and two mistakes\n${JSON.stringify(
        {
          servers: {
            good: kitchen,
            typo: { comand: 'node' },
            [LONG]: kitchen,
            remote: { url: 'ftp://example.com/mcp' },
          },
        },
        null,
        2,
      )}`,
    );
    const strict = await loadConfig({ projectDir: p.project, homeDir: p.home }).catch((e: unknown) => e);
    expect(strict).toMatchObject({ code: 'CONFIG_INVALID' });

    const switchboard = await createSwitchboard({ projectDir: p.project, homeDir: p.home, dataDir: p.data });
    const gateway = await startHttpGateway(switchboard.host, resolveGateway({ port: 0 }), { log: quietLog });
    try {
      await catalogHas(switchboard.host, 'mcp__good__echo');
      const base = new URL(gateway.url).origin;
      const listed = await fetch(`${base}/api/servers`, { headers: loginCookie(gateway) });
      expect(listed.status).toBe(200);
      const { servers } = (await listed.json()) as { servers: ApiServer[] };
      const byName = new Map(servers.map((s) => [s.name, s]));
      expect(byName.get('good')?.state).toBe('connected');
      expect(byName.get('typo')).toMatchObject({
        state: 'failed',
        source: p.file,
        error: { code: 'CONFIG_INVALID', message: expect.stringContaining('field "comand"') },
        hint: `correct the entry in ${p.file}`,
      });
      expect(byName.get('remote')).toMatchObject({ state: 'failed', transport: 'http' });
      expect(byName.get(LONG)?.error?.message).toContain('the name has 300 characters');
      // Enabling, disabling and reloading a failed entry never throws and never starts it.
      switchboard.host.reload('typo');
      await switchboard.host.setEnabled('typo', false);
      await switchboard.host.setEnabled('typo', true);
      expect(switchboard.host.servers().find((s) => s.name === 'typo')?.state).toBe('failed');
    } finally {
      await gateway.close();
      await switchboard.close();
    }

    // `list` shows it too, and `add` of another server still works on the same file.
    const added = await cli(p, 'add', 'more', '--', process.execPath, kitchenSinkBin);
    expect(added.code).toBe(0);
    expect(await readFile(p.file, 'utf8')).toContain('// two good servers and two mistakes');
    const listed = await cli(p, '--json', 'list');
    expect(listed.code).toBe(0);
    const rows = (
      JSON.parse(listed.out[0]!) as { servers: { name: string; state: string; error: unknown }[] }
    ).servers;
    expect(rows.find((r) => r.name === 'typo')).toMatchObject({
      state: 'failed',
      error: { code: 'CONFIG_INVALID' },
    });
    expect(rows.find((r) => r.name === 'more')?.state).toBe('connected');
    // `doctor` says what is wrong with it; `reload` reports it failed with the rest.
    const doctor = await cli(p, 'doctor', 'typo');
    expect(doctor.code).toBe(3);
    expect(doctor.all).toMatch(/config\s+.*field "comand"/);
    const reloaded = await cli(p, '--json', 'reload');
    const states = (JSON.parse(reloaded.out[0]!) as { servers: { name: string; state: string }[] }).servers;
    expect(states.find((s) => s.name === 'typo')?.state).toBe('failed');
    expect(states.find((s) => s.name === 'good')?.state).toBe('connected');
    // `remove` fixes the file: the broken entry goes, the comment stays.
    expect((await cli(p, 'remove', 'typo')).code).toBe(0);
    const after = await loadConfig({ projectDir: p.project, homeDir: p.home }, { invalidEntries: 'collect' });
    expect(after.invalid?.map((e) => e.name).sort()).toEqual([LONG, 'remote'].sort());
  });

  it('a write never turns a good entry bad, and may leave a bad one as it was', async () => {
    const p = await place();
    await writeFile(p.file, '{ "servers": { "typo": { "comand": "x" } } }');
    await writeServerEntries(p.file, [{ name: 'ok', command: 'node' }]);
    const loaded = await loadConfigFile(p.file, { invalidEntries: 'collect' });
    expect(loaded.servers.map((s) => s.name)).toEqual(['ok']);
    expect(loaded.invalid?.map((e) => e.name)).toEqual(['typo']);
  });
});
