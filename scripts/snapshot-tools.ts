/**
 * What the tool-list snapshot scripts share: start one MCP server from its package's `bin`
 * entry over stdio, with this Node (no npx wrapper, so closing the transport ends the only
 * process started), list every page of its tools, and keep what the server says about itself
 * (its `instructions` and `serverInfo` title and description); then write the snapshot in
 * name order, laid out by the project's formatter, so a re-run with the same versions gives
 * the same file byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** A server whose `nextCursor` never ends must not keep the script running. */
const MAX_PAGES = 100;

/** One server to snapshot. */
export interface SnapshotSpec {
  /** The key in the snapshot: the server name a Switchboard config would give it. */
  readonly server: string;
  readonly packageName: string;
  /** The `bin` entry to start, when the package has several. */
  readonly bin?: string;
  /** The version expected, when the fixture must be made from that one. */
  readonly version?: string;
  readonly args: (scratch: string) => string[];
  readonly env?: (scratch: string) => Record<string, string>;
}

/** One server's snapshot as written to the fixture. */
export interface ServerSnapshot {
  readonly package: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly instructions?: string;
  readonly tools: Tool[];
}

interface PackageInfo {
  readonly version: string;
  readonly entry: string;
}

/**
 * The path of a package's package.json. Found on the resolver's search paths rather than by
 * resolving `<package>/package.json`, which a package whose `exports` leave it out refuses.
 */
function manifestOf(resolveFrom: string, packageName: string): string {
  for (const dir of createRequire(resolveFrom).resolve.paths(packageName) ?? []) {
    const path = join(dir, packageName, 'package.json');
    if (existsSync(path)) return path;
  }
  throw new Error(`${packageName} is not installed where ${resolveFrom} resolves from; install it there`);
}

function packageInfo(resolveFrom: string, spec: SnapshotSpec): PackageInfo {
  const manifestPath = manifestOf(resolveFrom, spec.packageName);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? { main: manifest.bin } : (manifest.bin ?? {});
  const bin = spec.bin !== undefined ? bins[spec.bin] : Object.values(bins)[0];
  if (spec.version !== undefined && manifest.version !== spec.version)
    throw new Error(
      `${spec.packageName} is ${manifest.version} where ${spec.version} is expected; install that version`,
    );
  if (!bin)
    throw new Error(`${spec.packageName} has no such "bin" entry in its package.json; cannot start it`);
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

/**
 * Starts `spec`'s server (its package resolved from the file `resolveFrom`), lists its tools
 * and closes it. No tool is called.
 */
export async function snapshotServer(
  spec: SnapshotSpec,
  scratch: string,
  resolveFrom: string,
): Promise<ServerSnapshot> {
  const { version, entry } = packageInfo(resolveFrom, spec);
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
  // can answer sampling, elicitation or roots requests.
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
    const info = client.getServerVersion() as { title?: unknown; description?: unknown } | undefined;
    const instructions = client.getInstructions();
    return {
      package: spec.packageName,
      version,
      ...(typeof info?.title === 'string' ? { title: info.title } : {}),
      ...(typeof info?.description === 'string' ? { description: info.description } : {}),
      ...(instructions ? { instructions } : {}),
      tools,
    };
  } catch (error) {
    throw new Error(`${spec.server} (${spec.packageName} ${version}): ${String(error)}\n${stderr}`, {
      cause: error,
    });
  } finally {
    await client.close();
  }
}

/** Snapshots every server of `specs` in name order and writes them to `out`, formatted. */
export async function writeSnapshot(options: {
  readonly specs: readonly SnapshotSpec[];
  readonly scratch: string;
  readonly resolveFrom: string;
  readonly generatedBy: string;
  readonly out: string;
  readonly root: string;
}): Promise<void> {
  const servers: Record<string, ServerSnapshot> = {};
  for (const spec of [...options.specs].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    servers[spec.server] = await snapshotServer(spec, options.scratch, options.resolveFrom);
    console.log(`${spec.server}: ${servers[spec.server]!.tools.length} tools`);
  }
  const text = JSON.stringify({ generatedBy: options.generatedBy, servers }, null, 2);
  if (text.includes(options.scratch))
    throw new Error(`a tool definition mentions ${options.scratch}; not writing it`);
  writeFileSync(options.out, `${text}\n`);
  // The file is in the linted tree: give it the project formatter's layout.
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const formatted = spawnSync(process.execPath, [biome, 'format', '--write', options.out], {
    cwd: options.root,
    stdio: 'inherit',
  });
  if (formatted.status !== 0)
    throw new Error(`biome format failed on ${options.out}; run \`npx biome format --write\` on it`);
  console.log(`wrote ${options.out}`);
}
