import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filesystemBin } from '../../helpers/servers.js';
import { makePlace, ProbeServers, removePlace, type SandboxPlace, sandboxLine } from './probe-harness.js';
import { skipSandbox } from './sandbox-availability.js';

/**
 * Published servers from npm, sandboxed with their directories granted: server-filesystem on
 * its roots, server-memory with its file in its state directory (it writes beside its own
 * script by default, which the sandbox keeps read-only), and a server started through `npx`
 * (offline: the package is already in this project's node_modules).
 */
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const memoryBin = join(repo, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let place: SandboxPlace;
let servers: ProbeServers;

beforeAll(() => {
  place = makePlace('sb-sandbox-published-');
  servers = new ProbeServers(place);
});
afterEach(() => servers.cleanUp());
afterAll(() => removePlace(place));

const ENTITY = { entities: [{ name: 'switchboard', entityType: 'project', observations: ['sandboxed'] }] };

describe.skipIf(skipSandbox)('published servers, sandboxed (bubblewrap)', () => {
  it('runs @modelcontextprotocol/server-filesystem on its roots: read-only unless granted writable', async () => {
    const work = join(place.root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'notes.txt'), 'hello from the root');
    const entry = { args: [filesystemBin, work], roots: [{ uri: pathToFileURL(work).href }] };
    const fs = servers.add('fs', 'default', entry).conn;
    await fs.connect();
    const read = await fs.callTool('read_text_file', { path: join(work, 'notes.txt') });
    expect(read.text).toContain('hello from the root');
    const write = await fs.callTool('write_file', { path: join(work, 'new.txt'), content: 'x' });
    expect(write.isError).toBe(true);
    expect(existsSync(join(work, 'new.txt'))).toBe(false);

    const fsWrite = servers.add('fs-write', { write: [work] }, entry).conn;
    await fsWrite.connect();
    const wrote = await fsWrite.callTool('write_file', { path: join(work, 'new.txt'), content: 'written' });
    expect(wrote.isError).toBe(false);
    expect(readFileSync(join(work, 'new.txt'), 'utf8')).toBe('written');
  });

  it('runs @modelcontextprotocol/server-memory with its file in its state directory, kept across starts', async () => {
    // As the package ships it, it writes beside its script, which the sandbox keeps read-only.
    const bare = servers.add('memory-bare', 'default', { args: [memoryBin] }).conn;
    await bare.connect();
    const refused = await bare.callTool('create_entities', ENTITY);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/EROFS|read-only/);

    // The documented entry: MEMORY_FILE_PATH in the state directory.
    const entry = {
      args: [memoryBin],
      env: { MEMORY_FILE_PATH: '${SWITCHBOARD_STATE_DIR}/memory.jsonl' },
    };
    const first = servers.add('memory', 'default', entry);
    await first.conn.connect();
    expect((await first.conn.callTool('create_entities', ENTITY)).isError).toBe(false);
    await first.conn.close();
    expect(readFileSync(join(first.stateDir, 'memory.jsonl'), 'utf8')).toContain('switchboard');
    const again = servers.add('memory', 'default', entry).conn;
    await again.connect();
    const graph = await again.callTool('read_graph', {});
    expect(graph.text).toContain('sandboxed');
  });

  it('runs a server through npx, offline, with its own cache and the user’s left untouched', async () => {
    // The user's npm cache, as a launcher would find it in the host's HOME.
    const userCache = join(place.home, '.npm');
    mkdirSync(userCache, { recursive: true });
    writeFileSync(join(userCache, 'marker'), 'the user’s');
    const { conn, logs, stateDir } = servers.add(
      'npx-memory',
      { read: [repo] },
      {
        command: 'npx',
        args: ['--offline', '--no-install', '@modelcontextprotocol/server-memory'],
        cwd: repo,
        env: { MEMORY_FILE_PATH: '${SWITCHBOARD_STATE_DIR}/memory.jsonl' },
      },
    );
    await conn.connect();
    expect((await conn.callTool('create_entities', ENTITY)).isError).toBe(false);
    expect(sandboxLine(logs)).toMatch(/npm cache: /);
    // npx wrote what it writes (its logs) into the server's own cache, in its state directory.
    expect(existsSync(join(stateDir, '.npm'))).toBe(true);
    expect(readFileSync(join(userCache, 'marker'), 'utf8')).toBe('the user’s');
    expect(readFileSync(join(stateDir, 'memory.jsonl'), 'utf8')).toContain('switchboard');
  });
});
