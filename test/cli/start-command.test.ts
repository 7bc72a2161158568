import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/wait.js';
import { runCli } from './manage-cli.js';
import { commandLine, descendants, groupAlive, isAlive } from './process-tree.js';

/**
 * `switchboard start` (what `npm start` runs) as a person runs it: a real child process in its
 * own process group, the demo servers behind it, its printed MCP URL used by an SDK client,
 * and Ctrl-C (SIGINT to the group) leaving nothing running.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-start-'));
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'work'));
});

afterAll(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.pid) process.kill(-c.pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

function start(...args: string[]) {
  return startWith({}, ...args);
}

function startWith(extraEnv: NodeJS.ProcessEnv, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home'), NO_COLOR: '1', ...extraEnv };
  delete env.FORCE_COLOR;
  // --config names the "working directory" the store goes in (./.switchboard/ there).
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', join(dir, 'work'), 'start', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      detached: true,
    },
  );
  children.push(child);
  const out: string[] = [];
  const err: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => err.push(l));
  const stdout = createInterface({ input: child.stdout! });
  stdout.on('line', (l) => out.push(l));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out, err, exited };
}

describe('switchboard start', () => {
  it('serves the three demo servers at the printed URL, and Ctrl-C stops everything', async () => {
    const run = start('--port', '0');
    const banner = await eventually(
      () => run.out.join('\n'),
      (text) => /Ctrl-C stops it\./.test(text) || run.child.exitCode !== null,
      { what: 'printed the banner', timeoutMs: 20_000 },
    );
    const url = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(banner)?.[1];
    expect(url, banner).toBeDefined();
    const dashboard = /Dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/ui\/)(\?token=\S+)?/.exec(banner);
    expect(dashboard?.[1], banner).toBe(new URL('/ui/', url).href);
    const page = await fetch(dashboard![1]!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');

    // The link carries the local token, from a file in the data dir only its owner can read;
    // opening it signs the browser in with a cookie. The API wants the token.
    const data = join(dir, 'work', '.switchboard');
    const tokenFile = join(data, 'local-token');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect(dashboard![2]).toBe(`?token=${token}`);
    const login = await fetch(`${dashboard![1]}${dashboard![2]}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    expect(login.headers.get('set-cookie')).toContain('HttpOnly; SameSite=Strict');
    const api = `${new URL(url!).origin}/api/servers`;
    const refused = await fetch(api, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain(tokenFile);
    expect((await fetch(api, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // A CLI verb that talks to the running daemon reads the token from the file.
    const inbox = await runCli(
      { project: join(dir, 'work'), data, home: join(dir, 'home') },
      '--json',
      'inbox',
    );
    expect(inbox.code, inbox.err.join('\n')).toBe(0);
    expect(JSON.parse(inbox.out[0]!)).toEqual({ items: [] });
    expect(banner).toMatch(/servers: accounts, files, weather/);
    expect(banner).toMatch(/tools weather\n.*call weather\.get_forecast city=Lisbon/);
    expect(banner).toContain(`claude mcp add --transport http switchboard ${url}`);

    const client = new Client({ name: 'start-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    const wanted = [
      'mcp__weather__get_forecast',
      'mcp__accounts__connect_account',
      'mcp__files__list_directory',
    ];
    const names = await eventually(
      async () => (await client.listTools()).tools.map((t) => t.name),
      (list) => wanted.every((name) => list.includes(name)),
      { what: 'listed the tools of all three demo servers', timeoutMs: 25_000, everyMs: 200 },
    );
    expect(names).toEqual(expect.arrayContaining(wanted));
    const result = await client.callTool({
      name: 'mcp__weather__get_forecast',
      arguments: { city: 'Lisbon', days: 2 },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      city: 'Lisbon',
      unit: 'celsius',
      days: [{ day: 0 }, { day: 1 }],
    });
    await client.close();

    const pgid = run.child.pid!;
    const servers = descendants(pgid);
    const lines = servers.map(commandLine).join('\n');
    for (const name of ['demo-weather.ts', 'demo-elicitation.ts', 'server-filesystem'])
      expect(lines).toContain(name);
    expect(existsSync(join(dir, 'work', '.switchboard', 'switchboard.db'))).toBe(true);

    // Ctrl-C in a terminal signals the whole foreground process group.
    process.kill(-pgid, 'SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.err).toContain('Stopped.');
    expect(groupAlive(pgid)).toBe(false);
    expect(servers.filter(isAlive)).toEqual([]);
  });

  it('offers the SSH example server when an sshd answers, without serving it', async () => {
    const sshd: Server = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2p1 Test\r\n'));
    await new Promise<void>((resolve) => sshd.listen(0, '127.0.0.1', resolve));
    const sshdPort = (sshd.address() as { port: number }).port;
    try {
      const run = startWith(
        { SWITCHBOARD_DEMO_SSHD: `127.0.0.1:${sshdPort}` },
        '--port',
        '0',
        '--data-dir',
        join(dir, 'ssh-data'),
      );
      const banner = await eventually(
        () => run.out.join('\n'),
        (text) => /Ctrl-C stops it\./.test(text) || run.child.exitCode !== null,
        { what: 'printed the banner', timeoutMs: 20_000 },
      );
      expect(banner).toContain(`An SSH server answers on 127.0.0.1:${sshdPort} (SSH-2.0-OpenSSH_9.2p1 Test)`);
      expect(banner).toMatch(
        /npx switchboard --config examples\/ssh call ssh\.sysinfo alias=[\w.-]+@127\.0\.0\.1:\d+/,
      );
      // Offered, not served: the demo's servers are the same three.
      expect(banner).toMatch(/servers: accounts, files, weather\)/);
      // Stopped once it is fully up (its Ctrl-C handling is in place by then).
      await eventually(
        () => run.err.join('\n'),
        (text) => /demo servers are connected/.test(text),
        { what: 'connected the demo servers', timeoutMs: 30_000 },
      );
      process.kill(-run.child.pid!, 'SIGINT');
      expect(await run.exited).toBe(0);
    } finally {
      await new Promise((resolve) => sshd.close(resolve));
    }
  });

  it('says when the port is taken and suggests --port 0', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const run = start('--port', String(port));
      expect(await run.exited).toBe(3);
      expect(run.err.join('\n')).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(run.err.join('\n')).toContain('--port 0');
      expect(run.out).toEqual([]);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
