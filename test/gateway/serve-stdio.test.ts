import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';

/**
 * `switchboard serve --stdio` as a client that spawns it sees it: a real child process
 * serving a real upstream (the kitchen sink), reached by an SDK v2 client in both eras and by
 * the SDK v1 client.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
let dir: string;
const closers: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-serve-'));
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      governance: { mode: 'full-auto' },
      servers: { kitchen: { command: process.execPath, args: [kitchenSinkBin] } },
    }),
  );
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const serveArgs = () => [
  '--import',
  'tsx',
  main,
  '--config',
  dir,
  '--data-dir',
  join(dir, 'data'),
  'serve',
  '--stdio',
];

describe('switchboard serve --stdio', () => {
  for (const protocol of ['modern', 'legacy'] as const) {
    it(`serves the upstream's tools to an SDK v2 client (${protocol})`, async () => {
      const connection = new Connection({
        config: normalizeServerEntry({
          name: 'gateway',
          command: process.execPath,
          args: serveArgs(),
          env: { HOME: dir },
          protocol,
        }),
      });
      closers.push(() => connection.close());
      await connection.connect();
      expect(connection.era).toBe(protocol);
      const names = await listedTools(async () => {
        // The gateway's catalog fills as its upstream connects; a fresh list each time.
        const fresh = new Connection({ config: normalizeServerEntry({ name: 'probe', command: 'x' }) });
        void fresh;
        return (await connection.listTools()).items.map((t) => t.name);
      }, 'mcp__kitchen__echo');
      expect(names).toContain('mcp__kitchen__echo');
      const result = await connection.callTool('mcp__kitchen__echo', { text: `hello ${protocol}` });
      expect(result.text).toBe(`hello ${protocol}`);
    });
  }

  it('serves an SDK v1 client', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    const transport = new StdioV1({
      command: process.execPath,
      args: serveArgs(),
      env: { ...process.env, HOME: dir } as Record<string, string>,
    });
    closers.push(() => client.close());
    await client.connect(transport);
    const names = await listedTools(
      async () => (await client.listTools()).tools.map((t) => t.name),
      'mcp__kitchen__echo',
    );
    expect(names).toContain('mcp__kitchen__echo');
    const result = await client.callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'v1' } });
    expect((result.content as { text: string }[])[0]!.text).toBe('v1');
  });
});

describe('switchboard serve --stdio with a gateway section', () => {
  it("serves what the config's gateway.expose lets through, as over HTTP", async () => {
    await writeFile(
      join(dir, 'switchboard.json'),
      JSON.stringify({
        governance: { mode: 'full-auto' },
        gateway: { expose: { tools: ['kitchen/echo'], prompts: [] } },
        servers: { kitchen: { command: process.execPath, args: [kitchenSinkBin] } },
      }),
    );
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    const transport = new StdioV1({
      command: process.execPath,
      args: serveArgs(),
      env: { ...process.env, HOME: dir } as Record<string, string>,
    });
    closers.push(() => client.close());
    await client.connect(transport);
    const names = await listedTools(
      async () => (await client.listTools()).tools.map((t) => t.name),
      'mcp__kitchen__echo',
    );
    expect(names).toEqual(['mcp__kitchen__echo']);
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
  });
});

/** The tool names `list` returns once they include `name` (the gateway's catalog fills as its upstream connects). */
function listedTools(list: () => Promise<string[]>, name: string): Promise<string[]> {
  return eventually(list, (names) => names.includes(name), { what: `listed ${name}`, everyMs: 100 });
}
