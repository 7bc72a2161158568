import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { runCli } from '../cli/manage-cli.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';

/**
 * `switchboard serve` over HTTP as clients see it: a real child process on 127.0.0.1:0 in front
 * of a real upstream, reached by an SDK v2 client in both eras and the SDK v1 client, and the
 * security chain's first refusals seen from outside.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
let dir: string;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-serve-http-'));
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      governance: { mode: 'full-auto' },
      servers: { kitchen: { command: process.execPath, args: [kitchenSinkBin] } },
    }),
  );
  child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', dir, '--data-dir', join(dir, 'data'), 'serve', '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = (await lines.next()).value as string;
  expect(first).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  url = first.slice('listening '.length);
});

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  await rm(dir, { recursive: true, force: true });
});

describe('switchboard serve (HTTP)', () => {
  it('opens its Inbox to `switchboard inbox` in another process (daemon mode)', async () => {
    const listed = await runCli({ project: dir, data: join(dir, 'data'), home: dir }, '--json', 'inbox');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out.join('\n'))).toEqual({ items: [] });
  });

  for (const protocol of ['modern', 'legacy'] as const) {
    it(`serves an SDK v2 client (${protocol})`, async () => {
      const connection = new Connection({ config: normalizeServerEntry({ name: 'gateway', url, protocol }) });
      try {
        await connection.connect();
        expect(connection.era).toBe(protocol);
        const names = await listedTools(
          async () => (await connection.listTools()).items.map((t) => t.name),
          'mcp__kitchen__echo',
        );
        expect(names).toContain('mcp__kitchen__echo');
        expect((await connection.callTool('mcp__kitchen__echo', { text: protocol })).text).toBe(protocol);
      } finally {
        await connection.close();
      }
    });
  }

  it('serves an SDK v1 client', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(url)));
    try {
      const names = await listedTools(
        async () => (await client.listTools()).tools.map((t) => t.name),
        'mcp__kitchen__echo',
      );
      expect(names).toContain('mcp__kitchen__echo');
      const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'v1' } });
      expect((result.content as { text: string }[])[0]!.text).toBe('v1');
    } finally {
      await client.close();
    }
  });

  it('refuses a page from another origin and a rebound Host name', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    // node:http, not fetch: fetch does not let a caller set Host or Origin.
    const evil = await post(url, body, { ...headers, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    const rebound = await post(url, body, { ...headers, host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expect(rebound.headers['x-request-id']).toBeTruthy();
  });
});

function post(
  target: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The tool names `list` returns once they include `name` (the gateway's catalog fills as its upstream connects). */
function listedTools(list: () => Promise<string[]>, name: string): Promise<string[]> {
  return eventually(list, (names) => names.includes(name), { what: `listed ${name}`, everyMs: 100 });
}
