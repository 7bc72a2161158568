import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { everythingBin } from '../helpers/servers.js';

/**
 * `switchboard record` stands in for a server and writes the session to a cassette;
 * `switchboard replay` serves it back, on stdio and over HTTP in both eras. Recorded against
 * the kitchen fixture and the published server-everything, replayed, answers compared with
 * what the real server answered; a request the recording lacks gets an error saying what
 * differed; a configured secret never reaches the file.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
const SECRET = 'sk-test-0123456789abcdef';
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-record-'));
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      servers: {
        kitchen: { command: process.execPath, args: [kitchenSinkBin], env: { KITCHEN_KEY: SECRET } },
        everything: { command: process.execPath, args: [everythingBin, 'stdio'] },
      },
    }),
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => [
  '--import',
  'tsx',
  main,
  '--config',
  dir,
  '--data-dir',
  join(dir, 'data'),
  ...args,
];

async function stdioClient(args: string[], era: 'legacy' | 'modern' = 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'record-test', version: '1.0.0' },
    {
      // The CLI starts through tsx here, slowly on a loaded machine: the discover probe waits.
      versionNegotiation: {
        mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy',
        probe: { timeoutMs: 60_000 },
      },
    },
  );
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' }));
  return client;
}

/** What a session asks of the kitchen fixture, and what it got. */
async function kitchenSession(client: Client): Promise<unknown[]> {
  return [
    (await client.listTools()).tools.map((t) => t.name).sort(),
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
    await client.callTool({ name: 'echo', arguments: { text: SECRET } }),
    await client.readResource({ uri: 'kitchen://text' }),
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
  ];
}

/** Starts `replay --http` and returns its URL. */
async function replayHttp(cassette: string): Promise<string> {
  const child = spawn(process.execPath, cli('--json', 'replay', cassette, '--http', '--port', '0'), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return (JSON.parse(line) as { url: string }).url;
  throw new Error('replay printed no URL');
}

describe('record and replay', () => {
  let recorded: unknown[];
  const kitchenCassette = () => join(dir, 'kitchen.cassette.jsonl');

  it('records a session with the kitchen fixture, secrets redacted', { timeout: 90_000 }, async () => {
    const client = await stdioClient(cli('record', 'kitchen'));
    try {
      recorded = await kitchenSession(client);
    } finally {
      await client.close();
    }
    expect(JSON.stringify(recorded[1])).toContain('hello');
    const text = await readFile(kitchenCassette(), 'utf8');
    const lines = text.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ cassette: 1, server: 'kitchen' });
    expect(lines.length).toBeGreaterThan(10);
    expect(text).not.toContain(SECRET);
    expect(text).toContain('[redacted]');
  });

  it('replays it on stdio: the same answers', { timeout: 90_000 }, async () => {
    const client = await stdioClient(cli('replay', kitchenCassette()));
    try {
      const replayed = await kitchenSession(client).catch((e: unknown) => e);
      // The secret was redacted in the recording, so that one call does not match: its
      // answer is the miss; everything else is what the server said.
      expect(replayed).toBeInstanceOf(Error);
      const again = [
        (await client.listTools()).tools.map((t) => t.name).sort(),
        await client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
        await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      ];
      expect(again).toEqual(recorded.slice(0, 3));
      expect(await client.readResource({ uri: 'kitchen://text' })).toEqual(recorded[4]);
      expect(await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).toEqual(recorded[5]);
      const miss = await client.callTool({ name: 'add', arguments: { a: 2, b: 4 } }).catch((e: unknown) => e);
      expect(miss).toMatchObject({ code: -32602 });
      expect(String((miss as Error).message)).toContain('params.arguments.b is 4, recorded 3');
    } finally {
      await client.close();
    }
  });

  it('replays it over Streamable HTTP to a 2025 client', { timeout: 90_000 }, async () => {
    const url = await replayHttp(kitchenCassette());
    const client = new Client(
      { name: 'replay-http', version: '1.0.0' },
      { versionNegotiation: { mode: 'legacy' } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toEqual(recorded[1]);
      expect(await client.readResource({ uri: 'kitchen://text' })).toEqual(recorded[4]);
    } finally {
      await client.close();
    }
  });

  it('records and replays a session with the published server-everything', async () => {
    const session = async (client: Client) => [
      (await client.listTools()).tools.map((t) => t.name).sort(),
      await client.callTool({ name: 'echo', arguments: { message: 'replayed' } }),
      (await client.listPrompts()).prompts.map((p) => p.name).sort(),
    ];
    const recorder = await stdioClient(cli('record', 'everything', '--out', 'every.jsonl'));
    let real: unknown[];
    try {
      real = await session(recorder);
    } finally {
      await recorder.close();
    }
    expect(JSON.stringify(real[1])).toContain('replayed');
    const replayer = await stdioClient(cli('replay', 'every.jsonl'));
    try {
      expect(await session(replayer)).toEqual(real);
    } finally {
      await replayer.close();
    }
  }, 90_000);

  it('records and replays a 2026-07-28 session, on stdio and over HTTP', async () => {
    // Switchboard's own Connection as the 2026-07-28 client on stdio: its discover probe waits
    // out the CLI's start through tsx (the SDK client's probe window is shorter).
    const connect = async (args: string[]) => {
      const connection = new Connection({
        config: normalizeServerEntry({
          name: 'recorded',
          command: process.execPath,
          args,
          protocol: 'modern',
        }),
        eraStore: new MemoryEraVerdictStore(),
      });
      await connection.connect();
      return connection;
    };
    const session = async (c: Connection) => [
      (await c.listTools()).items.map((t) => t.name).sort(),
      (await c.callTool('echo', { text: 'modern' })).raw,
      await c.readResource('kitchen://text'),
    ];
    const recorder = await connect(cli('record', 'kitchen', '--out', 'modern.jsonl'));
    let real: unknown[];
    try {
      expect(recorder.protocolVersion).toBe('2026-07-28');
      real = await session(recorder);
    } finally {
      await recorder.close();
    }
    expect(JSON.stringify(real[1])).toContain('modern');
    const replayer = await connect(cli('replay', 'modern.jsonl'));
    try {
      expect(replayer.protocolVersion).toBe('2026-07-28');
      expect(await session(replayer)).toEqual(real);
    } finally {
      await replayer.close();
    }
    const url = await replayHttp('modern.jsonl');
    const overHttp = new Client(
      { name: 'replay-http', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await overHttp.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect((await overHttp.callTool({ name: 'echo', arguments: { text: 'modern' } })).content).toEqual(
        (real[1] as { content: unknown }).content,
      );
    } finally {
      await overHttp.close();
    }
  }, 120_000);
});
