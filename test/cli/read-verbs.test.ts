import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitchenSinkBin, misbehavingBin } from '../fixtures/paths.js';
import { type RawFixture, spawnRaw } from '../fixtures/test-support.js';
import { everythingBin } from '../helpers/servers.js';

/**
 * The read verbs end to end: the CLI as a real child process against the kitchen-sink
 * fixture server (one HTTP instance for the whole file), human output, `--json` documents and
 * exit codes. The CLI is bundled once, like the fixtures, so each of the ~30 runs starts in a
 * fraction of tsx's time.
 *
 * Two projects share the fixture: `auto` (full-auto mode, `kitchen/throw` denied, and a
 * `broken` server that counts its starts in a file and then dies) and `ask` (auto-edit mode,
 * kitchen trusted: read-only tools run, others need an approval). A third, `loops`, has one
 * server whose tool list pages round in circles.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
let dir: string;
let cli: string;
let starts: string;
let server: RawFixture;

beforeAll(async () => {
  server = spawnRaw(kitchenSinkBin, ['--transport', 'http']);
  const { url } = JSON.parse(await server.stdout.waitFor((line) => line.startsWith('{'))) as { url: string };
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-read-'));
  cli = join(dir, 'cli.mjs');
  // The bundle keeps its packages external: they resolve through this link to the project's.
  await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await build({
    entryPoints: [join(repo, 'src/cli/main.ts')],
    outfile: cli,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    bundle: true,
    packages: 'external',
    logLevel: 'warning',
  });
  starts = join(dir, 'broken-starts');
  const kitchen = { url };
  const broken = {
    command: process.execPath,
    args: ['-e', "require('fs').appendFileSync(process.argv[1], 'x'); process.exit(1)", starts],
  };
  await project('auto', {
    servers: { kitchen, broken },
    governance: { mode: 'full-auto', rules: [{ server: 'kitchen', tool: 'throw', effect: 'deny' }] },
  });
  await project('ask', {
    servers: { kitchen: { ...kitchen, trust: 'trusted' } },
    governance: { mode: 'auto-edit' },
  });
  await project('loops', {
    servers: { loopy: { command: process.execPath, args: [misbehavingBin, '--mode', 'pages-cursor-cycle'] } },
  });
  await project('everything', {
    servers: { everything: { command: process.execPath, args: [everythingBin, 'stdio'] } },
  });
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

async function project(name: string, config: unknown): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'switchboard.json'), JSON.stringify(config));
}

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON documents are checked by the assertions.
  json(): any;
}

/**
 * Runs `switchboard --config <project> --data-dir <project>/data <args>`. `answers` are typed
 * on stdin one at a time, each once its prompt has appeared on stderr (the terminal prompt
 * drops lines typed while nothing is asked); `stdin` is written at once and closed.
 */
function sb(
  name: 'auto' | 'ask' | 'loops' | 'everything',
  args: readonly string[],
  options: { stdin?: string; answers?: readonly [prompt: string, line: string][] } = {},
): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, HOME: dir };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  const child = spawn(
    process.execPath,
    [cli, '--config', join(dir, name), '--data-dir', join(dir, name, 'data'), ...args],
    { stdio: ['pipe', 'pipe', 'pipe'], env },
  );
  let out = '';
  let err = '';
  let seen = 0;
  const answers = [...(options.answers ?? [])];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (let next = answers[0]; next && err.indexOf(next[0], seen) >= 0; next = answers[0]) {
      seen = err.indexOf(next[0], seen) + next[0].length;
      child.stdin.write(`${next[1]}\n`);
      answers.shift();
    }
  });
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  else if (!options.answers) child.stdin.end();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      child.stdin.destroy();
      resolve({ code: code ?? -1, out, err, json: () => JSON.parse(out) });
    });
  });
}

async function startsOfBroken(): Promise<number> {
  return (await readFile(starts, 'utf8').catch(() => '')).length;
}

describe('switchboard call', () => {
  it('connects only the server it needs, types key=value by the schema, prints structured content', async () => {
    const [add, json] = await Promise.all([
      sb('auto', ['call', 'kitchen.add', 'a=1', 'b=2.5']),
      sb('auto', ['--json', 'call', 'mcp__kitchen__add', 'a=2', 'b=3']),
    ]);
    expect(add).toMatchObject({ code: 0, out: '{\n  "sum": 3.5\n}\n' });
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({
      server: 'kitchen',
      tool: 'add',
      qualifiedName: 'mcp__kitchen__add',
      isError: false,
      text: '{"sum":5}',
      structuredContent: { sum: 5 },
      media: [],
      links: [],
      content: [{ type: 'text', text: '{"sum":5}' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'kitchen-sink', version: '1.0.0' } },
    });
    // The broken server was never started by these one-shot calls.
    expect(await startsOfBroken()).toBe(0);
  });

  it('saves media to files, reads --args from stdin (key=value overrides it), shows progress on stderr', async () => {
    const [image, progress] = await Promise.all([
      sb('auto', ['--json', 'call', 'kitchen.image']),
      sb('auto', ['call', 'kitchen.progress', 'delayMs=1', '--args', '-'], {
        stdin: '{"steps":3,"delayMs":"not a number"}',
      }),
    ]);
    expect(image.code).toBe(0);
    const result = image.json();
    expect(result.text).toBe('an image');
    expect(result.media).toEqual([
      {
        type: 'image',
        mimeType: 'image/png',
        bytes: expect.any(Number),
        path: expect.stringMatching(/\.png$/),
        uri: null,
      },
    ]);
    const png = await readFile(result.media[0].path);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBe(result.media[0].bytes);
    expect(progress.code).toBe(0);
    expect(progress.out).toBe('done\n');
    expect(progress.err.split('\n').filter((l) => l.startsWith('progress'))).toEqual([
      'progress 1/3: step 1 of 3',
      'progress 2/3: step 2 of 3',
      'progress 3/3: step 3 of 3',
    ]);
  });

  it('exits 1 for a tool error, 4 for a policy denial, 2 for usage mistakes', async () => {
    const [fail, denied, unknownArg, missing] = await Promise.all([
      sb('auto', ['call', 'kitchen.fail']),
      sb('auto', ['--json', 'call', 'kitchen.throw']),
      sb('auto', ['--json', 'call', 'kitchen.echo', 'txt=hi']),
      sb('auto', ['call', 'kitchen.add', 'a=1']),
    ]);
    expect(fail).toMatchObject({ code: 1, out: 'it failed\n' });
    expect(fail.err).toContain('kitchen.fail returned an error');
    expect(denied.code).toBe(4);
    expect(denied.json().error.code).toBe('POLICY_DENIED');
    expect(denied.json().error.message).toContain('denied by the rule kitchen/throw');
    expect(unknownArg.code).toBe(2);
    expect(unknownArg.json()).toEqual({
      error: { code: 'USAGE', message: 'Unknown parameter "txt"; did you mean "text"? It takes: text.' },
    });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(
      'kitchen.add needs b (number): add(a: number, b: number) → { sum: number }.',
    );
  });

  it('declines an approval with no terminal (exit 4) unless --yes, and asks at the prompt with --interactive', async () => {
    const [readOnly, declined, confirmed] = await Promise.all([
      sb('ask', ['call', 'kitchen.echo', 'text=hi']),
      sb('ask', ['call', 'kitchen.add', 'a=1', 'b=2']),
      sb('ask', ['call', 'kitchen.confirm', '--interactive'], {
        answers: [
          ['[y]es / [a]lways / [N]o: ', 'y'],
          ['Answer it? ', 'y'],
          ['confirm [', 'yes'],
          ['name [', 'bob'],
          ['color [', '1'],
        ],
      }),
    ]);
    // --yes grants the call; the server's question still has nobody to answer it.
    const [yes, yesAsked] = await Promise.all([
      sb('ask', ['--json', 'call', 'kitchen.add', 'a=1', 'b=2', '--yes']),
      sb('ask', ['call', 'kitchen.confirm', '--yes']),
    ]);
    expect(readOnly).toMatchObject({ code: 0, out: 'hi\n' });
    expect(declined.code, declined.err).toBe(4);
    // In the command's own terms: what to add, not the library's front-end.
    expect(declined.err).toContain("kitchen.add needs a person's approval");
    expect(declined.err).toContain('Add --yes to approve the calls of this command');
    expect(declined.err).not.toContain('host.inbox');
    expect(yes.code, yes.err).toBe(0);
    expect(JSON.parse(yes.out)).toMatchObject({ structuredContent: { sum: 3 } });
    expect(yesAsked.code, yesAsked.err).toBe(0);
    expect(JSON.parse(yesAsked.out)).toMatchObject({ action: 'decline' });
    expect(confirmed.err).toContain('Allow kitchen.confirm?');
    expect(confirmed.err).toContain('kitchen asks: Please confirm');
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.out)).toEqual({
      action: 'accept',
      content: { confirm: true, name: 'bob', color: 'red' },
    });
  }, 90_000);
});

describe('switchboard list and status', () => {
  it('says which lists a server cut short, and why', async () => {
    const [list, json, status] = await Promise.all([
      sb('loops', ['list']),
      sb('loops', ['--json', 'list']),
      sb('loops', ['status', 'loopy']),
    ]);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^loopy\s+connected\s+\S+\s+9\s+0\s+0$/m);
    expect(list.out).toContain(
      '  incomplete: tools: 9 shown, stopped after 3 pages (the server handed back a cursor already followed); it offers more',
    );
    expect(json.json().servers[0].incompleteLists).toEqual([
      { kind: 'tools', reason: 'cursor-loop', pages: 3, items: 9 },
    ]);
    expect(status.out).toMatch(/incomplete\s+tools: 9 shown, stopped after 3 pages/);
  });

  it('shows every server with its state and counts, and a fix for the broken one', async () => {
    const before = await startsOfBroken();
    const [list, json] = await Promise.all([sb('auto', ['list']), sb('auto', ['--json', 'list'])]);
    expect(list.code).toBe(0);
    const lines = list.out.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATE\s+PROTOCOL\s+TOOLS\s+RESOURCES\s+PROMPTS$/);
    expect(lines[1]).toMatch(/^broken\s+failed\s+-\s+0\s+0\s+0$/);
    expect(lines[2]).toMatch(/^kitchen\s+connected\s+\d{4}-\d{2}-\d{2}\s+\d+\s+2\s+1$/);
    expect(list.out).toContain(`  fix: see the log: ${join(dir, 'auto', 'data', 'logs', 'broken.log')}`);
    expect(json.code).toBe(0);
    const servers = json.json().servers;
    expect(servers.map((s: { name: string; state: string }) => [s.name, s.state])).toEqual([
      ['broken', 'failed'],
      ['kitchen', 'connected'],
    ]);
    expect(servers[1]).toMatchObject({
      transport: 'http',
      protocolVersion: expect.any(String),
      resources: 2,
      prompts: 1,
      source: join(dir, 'auto', 'switchboard.json'),
      error: null,
      hint: null,
    });
    expect(servers[1].tools).toBeGreaterThan(10);
    expect(servers[0].error.code).toEqual(expect.any(String));
    expect(await startsOfBroken()).toBeGreaterThan(before);
  });

  it('status <server> names what it offers; exit 3 when it is not connected, 2 when unknown', async () => {
    const [kitchen, broken, unknown] = await Promise.all([
      sb('auto', ['status', 'kitchen']),
      sb('auto', ['--json', 'status', 'broken']),
      sb('auto', ['status', 'nope']),
    ]);
    expect(kitchen.code).toBe(0);
    expect(kitchen.out).toMatch(/^kitchen {2}connected\n {2}transport +http, protocol /);
    expect(kitchen.out).toMatch(/\n {2}offers +\d+ tools, 2 resources \(\+1 template\), 1 prompt\n/);
    expect(kitchen.out).toMatch(/\n {2}tools +echo, add, /);
    expect(kitchen.out).toContain('  resources  kitchen://text, kitchen://blob\n');
    expect(kitchen.out).toContain('  prompts    greet\n');
    expect(broken.code).toBe(3);
    const [detail] = broken.json().servers;
    expect(detail).toMatchObject({
      name: 'broken',
      state: 'failed',
      logFile: join(dir, 'auto', 'data', 'logs', 'broken.log'),
      rejectedTools: [],
      offers: { tools: [], resources: [], resourceTemplates: [], prompts: [] },
    });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('No server named "nope" in ');
    expect(unknown.err).toMatch(/Configured: (.*, )?kitchen/);
  });
});

describe('switchboard tools and describe', () => {
  it('lists tools as signatures and describes one', async () => {
    const [tools, json, describeHuman, describeJson] = await Promise.all([
      sb('auto', ['tools', 'kitchen']),
      sb('auto', ['--json', 'tools']),
      sb('auto', ['describe', 'kitchen.log']),
      sb('auto', ['--json', 'describe', 'mcp__kitchen__echo']),
    ]);
    expect(tools.code).toBe(0);
    expect(tools.out).toMatch(
      /^kitchen \(\d+ tools\)\n {2}echo\(text: string\) → text\n {6}Returns the given text unchanged\.\n/,
    );
    expect(tools.out).toContain('  add(a: number, b: number) → { sum: number }\n');
    expect(json.code).toBe(0);
    const listed = json.json();
    expect(listed.tools.find((t: { name: string }) => t.name === 'echo')).toEqual({
      server: 'kitchen',
      name: 'echo',
      qualifiedName: 'mcp__kitchen__echo',
      title: null,
      description: 'Returns the given text unchanged.',
      signature: 'echo(text: string) → text',
      inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
      outputSchema: null,
      annotations: { readOnlyHint: true },
      app: null,
    });
    expect(listed.unavailable).toEqual([
      expect.objectContaining({
        server: 'broken',
        state: 'failed',
        hint: expect.stringContaining('broken.log'),
      }),
    ]);
    expect(json.err).toBe('');
    expect(describeHuman.code).toBe(0);
    expect(describeHuman.out).toContain(
      '  log(level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency", message: string) → text\n',
    );
    expect(describeHuman.out).toMatch(
      /\nParameters\n {2}level +"debug" \| .* +required\n {2}message +string +required/,
    );
    expect(describeHuman.out).toContain('Call  switchboard call kitchen.log level=… message=…');
    expect(describeJson.json()).toMatchObject({
      server: 'kitchen',
      name: 'echo',
      signature: 'echo(text: string) → text',
      parameters: [
        { name: 'text', type: 'string', required: true, default: null, description: 'Text to echo back' },
      ],
    });
  });
});

describe('--json carries the MCP objects', () => {
  it('prints tools as listed and results as returned, _meta and content included', async () => {
    const [tools, describeJson, call, image] = await Promise.all([
      sb('auto', ['--json', 'tools', 'kitchen']),
      sb('auto', ['--json', 'describe', 'kitchen.app']),
      sb('auto', ['--json', 'call', 'kitchen.app']),
      sb('auto', ['--json', 'call', 'kitchen.image']),
    ]);
    const app = tools.json().tools.find((t: { name: string }) => t.name === 'app');
    expect(app).toMatchObject({
      name: 'app',
      qualifiedName: 'mcp__kitchen__app',
      _meta: { ui: { resourceUri: 'ui://kitchen/app.html' } },
    });
    expect(describeJson.json()._meta).toEqual({ ui: { resourceUri: 'ui://kitchen/app.html' } });
    expect(describeJson.json().app).toEqual({
      resourceUri: 'ui://kitchen/app.html',
      visibility: ['model', 'app'],
    });
    expect(call.code).toBe(0);
    expect(call.json()).toMatchObject({
      // The conveniences, as before…
      server: 'kitchen',
      tool: 'app',
      text: 'app opened',
      structuredContent: { opened: true },
      // …and the result's own fields as the server sent them.
      content: [{ type: 'text', text: 'app opened' }],
      _meta: { 'kitchen/trace': 'app-1' },
    });
    // Media is saved to files and still in the raw content, base64 as sent.
    expect(image.json().content).toEqual([
      { type: 'image', data: expect.stringMatching(/^iVBOR/), mimeType: 'image/png' },
      { type: 'text', text: 'an image' },
    ]);
    expect(image.json().media).toHaveLength(1);
  });
});

describe('switchboard resources and read', () => {
  it('lists resources and templates, reads text and saves blobs', async () => {
    const [human, json, text, blob, nothing] = await Promise.all([
      sb('auto', ['resources']),
      sb('auto', ['--json', 'resources', 'kitchen']),
      sb('auto', ['read', 'kitchen://items/7']),
      sb('auto', ['--json', 'read', 'kitchen://blob', '--server', 'kitchen']),
      sb('auto', ['read', 'kitchen://nothing']),
    ]);
    expect(human.code).toBe(0);
    expect(human.out.split('\n').slice(0, 4)).toEqual([
      'kitchen',
      expect.stringMatching(/^ {2}kitchen:\/\/text +text +text\/plain +A text resource$/),
      expect.stringMatching(/^ {2}kitchen:\/\/blob +blob +application\/octet-stream +A binary resource$/),
      expect.stringMatching(/^ {2}kitchen:\/\/items\/\{id\} +item +text\/plain +\(template\) An item by id$/),
    ]);
    expect(human.err).toMatch(
      /^switchboard: broken is not connected \(failed\): [A-Z_]+: .* Fix: see the log: .*broken\.log\.\n$/,
    );
    expect(json.json()).toEqual({
      resources: [
        expect.objectContaining({
          server: 'kitchen',
          uri: 'kitchen://text',
          name: 'text',
          mimeType: 'text/plain',
        }),
        expect.objectContaining({ server: 'kitchen', uri: 'kitchen://blob', name: 'blob' }),
      ],
      resourceTemplates: [
        expect.objectContaining({ server: 'kitchen', uriTemplate: 'kitchen://items/{id}' }),
      ],
      unavailable: [],
    });
    expect(text).toMatchObject({ code: 0, out: 'item 7\n' });
    const [content] = blob.json().contents;
    expect(content).toMatchObject({ uri: 'kitchen://blob', mimeType: 'application/octet-stream', bytes: 10 });
    expect(await readFile(content.path, 'utf8')).toBe('hello blob');
    // The content as the server sent it comes along: its base64 blob beside the saved file.
    expect(content.blob).toBe(Buffer.from('hello blob').toString('base64'));
    expect((await stat(content.path)).isFile()).toBe(true);
    expect(blob.json()).toMatchObject({ server: 'kitchen', uri: 'kitchen://blob' });
    expect(nothing.code).toBe(2);
    expect(nothing.err).toContain('No connected server lists kitchen://nothing');
  });
});

describe('switchboard prompts and prompt', () => {
  it('lists prompts with their arguments and prints a prompt with its roles', async () => {
    const [human, json, greet, greetJson, missing] = await Promise.all([
      sb('auto', ['prompts']),
      sb('auto', ['--json', 'prompts']),
      sb('auto', ['prompt', 'kitchen.greet', 'name=bob']),
      sb('auto', ['--json', 'prompt', 'greet', 'name=al']),
      sb('auto', ['--json', 'prompt', 'kitchen.greet']),
    ]);
    expect(human).toMatchObject({ code: 0, out: 'kitchen\n  greet(name)  Greets someone by name.\n' });
    expect(json.json().prompts).toEqual([
      {
        server: 'kitchen',
        name: 'greet',
        title: null,
        description: 'Greets someone by name.',
        arguments: [{ name: 'name', description: 'Who to greet', required: true }],
      },
    ]);
    expect(greet).toMatchObject({ code: 0, out: 'user:\nHello, bob!\n' });
    expect(greetJson.json()).toEqual({
      server: 'kitchen',
      name: 'greet',
      description: null,
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, al!' } }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'kitchen-sink', version: '1.0.0' } },
    });
    expect(missing.code).toBe(2);
    expect(missing.json().error.message).toBe('kitchen.greet needs name: greet(name).');
  });
});

describe('one-shot verbs against server-everything', () => {
  // The published server sends requests and notifications of its own while the CLI closes; an
  // answer the SDK could no longer send once the transport stopped was printed as a warning.
  it('leave stderr quiet: no transport noise from the close', { timeout: 120_000 }, async () => {
    const runs = [
      await sb('everything', ['call', '--yes', 'everything.echo', 'message=hi']),
      await sb('everything', ['tools']),
      await sb('everything', ['resources']),
      await sb('everything', ['prompts']),
    ];
    expect(runs[0]?.out).toContain('Echo: hi');
    for (const run of runs) {
      expect(run.code, run.err).toBe(0);
      expect(run.err).not.toMatch(/Failed to send|not running|\[lifecycle\]|transport:/);
    }
  });
});
