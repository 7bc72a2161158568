/**
 * Writes test/fixtures/catalogs/published-tools.json: the tool lists of the published MCP
 * reference servers installed as dev dependencies, exactly as each server sends them. Search
 * tests and token benchmarks run against this real catalog without starting any process.
 *
 *   npx tsx scripts/snapshot-published-tools.ts
 *
 * Each server is started from its own `bin` entry with this Node (no npx wrapper, so closing
 * the transport ends the only process started), with a throwaway directory for the
 * filesystem server and a throwaway memory file. Servers and tools are written in name order
 * so a re-run with the same versions gives the same file; the file is laid out by the project's
 * formatter (biome), since it sits in the linted tree.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'test', 'fixtures', 'catalogs', 'published-tools.json');
/** A server whose `nextCursor` never ends must not keep the script running. */
const MAX_PAGES = 100;

interface PublishedServer {
  /** The key in the snapshot: the server name a Switchboard config would give it. */
  readonly server: string;
  readonly packageName: string;
  readonly args: (scratch: string) => string[];
  readonly env?: (scratch: string) => Record<string, string>;
}

const SERVERS: readonly PublishedServer[] = [
  // The launcher's first argument picks the transport; `stdio` is its default, said anyway.
  { server: 'everything', packageName: '@modelcontextprotocol/server-everything', args: () => ['stdio'] },
  // The allowed directory is an argument; it appears in no tool definition.
  { server: 'filesystem', packageName: '@modelcontextprotocol/server-filesystem', args: (s) => [s] },
  {
    server: 'memory',
    packageName: '@modelcontextprotocol/server-memory',
    args: () => [],
    env: (s) => ({ MEMORY_FILE_PATH: join(s, 'memory.jsonl') }),
  },
  {
    server: 'sequential-thinking',
    packageName: '@modelcontextprotocol/server-sequential-thinking',
    args: () => [],
    env: () => ({ DISABLE_THOUGHT_LOGGING: 'true' }),
  },
];

interface PackageInfo {
  readonly version: string;
  readonly entry: string;
}

function packageInfo(packageName: string): PackageInfo {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${packageName} has no "bin" entry in its package.json; cannot start it`);
  return { version: manifest.version, entry: join(dirname(manifestPath), bin) };
}

/** Every page of `tools/list`, walked by cursor so each tool is kept as the server sent it. */
async function listAllTools(client: Client, server: string): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`${server}: tools/list still had a nextCursor after ${MAX_PAGES} pages; giving up`);
}

async function snapshot(spec: PublishedServer, scratch: string) {
  const { version, entry } = packageInfo(spec.packageName);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...spec.args(scratch)],
    env: { ...getDefaultEnvironment(), ...spec.env?.(scratch) },
    cwd: scratch,
    stderr: 'pipe',
  });
  // Servers announce themselves on stderr; keep it quiet unless something goes wrong.
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  // Declare everything a full client can do: some servers offer tools only to clients that
  // can answer sampling, elicitation or roots requests. No tool is called here.
  const client = new Client(
    { name: 'switchboard-snapshot', version: '0' },
    {
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      },
    },
  );
  client.setRequestHandler('roots/list', async () => ({ roots: [] }));
  try {
    await client.connect(transport);
    const tools = await listAllTools(client, spec.server);
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { package: spec.packageName, version, tools };
  } catch (error) {
    throw new Error(`${spec.server} (${spec.packageName} ${version}): ${String(error)}\n${stderr}`, {
      cause: error,
    });
  } finally {
    await client.close();
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'switchboard-snapshot-'));
try {
  const servers: Record<string, Awaited<ReturnType<typeof snapshot>>> = {};
  for (const spec of [...SERVERS].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    servers[spec.server] = await snapshot(spec, scratch);
    console.log(`${spec.server}: ${servers[spec.server]!.tools.length} tools`);
  }
  const text = JSON.stringify({ generatedBy: 'scripts/snapshot-published-tools.ts', servers }, null, 2);
  if (text.includes(scratch)) throw new Error(`a tool definition mentions ${scratch}; not writing it`);
  writeFileSync(out, `${text}\n`);
  // The file is in the linted tree: give it the project formatter's layout, so a re-run
  // with the same server versions leaves it byte for byte unchanged.
  const biome = require.resolve('@biomejs/biome/bin/biome');
  const formatted = spawnSync(process.execPath, [biome, 'format', '--write', out], {
    cwd: root,
    stdio: 'inherit',
  });
  if (formatted.status !== 0)
    throw new Error(`biome format failed on ${out}; run \`npx biome format --write\` on it`);
  console.log(`wrote ${out}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
