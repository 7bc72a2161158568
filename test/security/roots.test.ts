import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host, type HostOptions } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { inMemoryGatewayClient } from '../gateway/in-memory-gateway.js';
import { filesystemBin } from '../helpers/servers.js';
import { catalogHas, eventually } from '../helpers/wait.js';

/**
 * Roots never widen a server's sandbox (issue: the host answered `roots/list` with its working
 * directory, and the published filesystem server replaced its configured directory with it, so
 * a caller granted only that server read a key file beside the daemon). Against the real
 * `@modelcontextprotocol/server-filesystem`, which acts on the roots it is given, and the
 * kitchen fixture, which reports them.
 */

let base: string;
let sandbox: string;
let daemonDir: string;
let workspace: string;
let host: Host | undefined;
const startedIn = process.cwd();

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sb-roots-')));
  sandbox = join(base, 'sandbox');
  daemonDir = join(base, 'daemon');
  workspace = join(base, 'workspace');
  for (const dir of [sandbox, daemonDir, workspace]) await mkdir(dir);
  await writeFile(join(sandbox, 'notes.txt'), 'inside the sandbox\n');
  await writeFile(join(daemonDir, 'secret.key'), 'PRIVATE KEY\n');
  await writeFile(join(workspace, 'plan.md'), 'the workspace\n');
  // The daemon runs from a directory holding a secret, as one started from its data dir does.
  process.chdir(daemonDir);
});

afterEach(async () => {
  process.chdir(startedIn);
  await host?.close();
  host = undefined;
  await rm(base, { recursive: true, force: true });
});

async function startFilesystem(extra: Partial<HostOptions> = {}, entry: Record<string, unknown> = {}) {
  host = await Host.create({
    dataDir: join(base, 'data'),
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({
        name: 'fs',
        command: process.execPath,
        args: [filesystemBin, sandbox],
        ...entry,
      }),
    ],
    ...extra,
  });
  await catalogHas(host, 'mcp__fs__read_text_file');
  // The server asks roots/list once it is initialized and says on stderr what it did with them:
  // wait for that, so the reads below judge the settled sandbox.
  const log = host.logFile('fs');
  return eventually(
    () => readFile(log, 'utf8').catch(() => ''),
    (text) => /Updated allowed directories|No valid root directories|no roots set/.test(text),
    { what: 'saw the filesystem server take its roots' },
  );
}

async function allowed(h: Host): Promise<string> {
  return (await h.callTool('mcp__fs__list_allowed_directories', {})).text;
}

describe('roots come only from configuration', () => {
  it("a server without configured roots keeps its own directory; the daemon's working directory is never offered", async () => {
    const log = await startFilesystem();
    expect(log).not.toMatch(/Updated allowed directories/);
    const h = host!;
    expect(await allowed(h)).toContain(sandbox);
    expect(await allowed(h)).not.toContain(daemonDir);
    const secret = await h.callTool('mcp__fs__read_text_file', { path: join(daemonDir, 'secret.key') });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain('PRIVATE KEY');
    const inside = await h.callTool('mcp__fs__read_text_file', { path: join(sandbox, 'notes.txt') });
    expect(inside.text).toContain('inside the sandbox');
  });

  it("an entry's roots are what the server works in", async () => {
    const log = await startFilesystem({}, { roots: [{ uri: pathToFileURL(workspace).href, name: 'ws' }] });
    expect(log).toMatch(/Updated allowed directories/);
    const h = host!;
    expect(await allowed(h)).toContain(workspace);
    expect(
      (await h.callTool('mcp__fs__read_text_file', { path: join(workspace, 'plan.md') })).text,
    ).toContain('the workspace');
    expect(
      (await h.callTool('mcp__fs__read_text_file', { path: join(daemonDir, 'secret.key') })).isError,
    ).toBe(true);
  });

  it("an embedding app's roots (HostOptions.roots) reach servers without their own", async () => {
    await startFilesystem({ roots: [{ uri: pathToFileURL(workspace).href }] });
    const h = host!;
    expect(await allowed(h)).toContain(workspace);
    expect(
      (await h.callTool('mcp__fs__read_text_file', { path: join(daemonDir, 'secret.key') })).isError,
    ).toBe(true);
  });
});

describe("a gateway client's roots are confined to the server's configured ones", () => {
  async function clientClaiming(claimed: { uri: string; name?: string }[]): Promise<Client> {
    const client = await inMemoryGatewayClient(
      host!,
      { id: 'granted-kitchen-only', allows: (s) => s === 'kitchen' },
      {
        capabilities: { roots: {} },
        setup: (c) => c.setRequestHandler('roots/list', () => ({ roots: claimed })),
      },
    );
    return client;
  }

  async function kitchenRoots(roots?: { uri: string }[]): Promise<unknown> {
    host = await Host.create({
      dataDir: join(base, 'data'),
      governance: { mode: 'full-auto' },
      servers: [
        normalizeServerEntry({
          name: 'kitchen',
          command: process.execPath,
          args: [kitchenSinkBin],
          ...(roots && { roots }),
        }),
      ],
    });
    await catalogHas(host, 'mcp__kitchen__roots');
    const client = await clientClaiming([
      { uri: 'file:///', name: 'everything' },
      { uri: pathToFileURL(daemonDir).href, name: 'the daemon' },
      { uri: `${pathToFileURL(workspace).href}/../daemon`, name: 'climbing' },
      { uri: `${pathToFileURL(workspace).href}/src`, name: 'narrower' },
    ]);
    try {
      const result = await client.callTool({ name: 'mcp__kitchen__roots', arguments: {} });
      return JSON.parse((result.content as { text: string }[])[0]!.text);
    } finally {
      await client.close();
    }
  }

  it('only a claim within the configured roots gets through', async () => {
    expect(await kitchenRoots([{ uri: pathToFileURL(workspace).href }])).toEqual([
      { uri: `${pathToFileURL(workspace).href}/src`, name: 'narrower' },
    ]);
  });

  it('with no configured roots, no claim gets through', async () => {
    expect(await kitchenRoots()).toEqual([]);
  });
});
