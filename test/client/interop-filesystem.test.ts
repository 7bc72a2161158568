import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { filesystemBin, stdioEntry } from '../helpers/servers.js';

/** Interop with the published @modelcontextprotocol/server-filesystem, which uses roots. */
describe('server-filesystem over stdio', () => {
  let dir: string;
  let conn: Connection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-fs-'));
    await writeFile(join(dir, 'hello.txt'), 'hello from a file\n');
    conn = new Connection({
      // The configured root replaces the command-line directory once the server asks roots/list.
      config: stdioEntry('fs', [filesystemBin, dir], {
        roots: [{ uri: pathToFileURL(dir).href, name: 'sandbox' }],
      }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
  });

  afterAll(async () => {
    await conn.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists its tools', async () => {
    const names = (await conn.listTools()).items.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
  });

  it('reads, writes and lists files inside the root', async () => {
    const read = await conn.callTool('read_text_file', { path: join(dir, 'hello.txt') });
    expect(read.isError).toBe(false);
    expect(read.text).toContain('hello from a file');
    const write = await conn.callTool('write_file', { path: join(dir, 'new.txt'), content: 'written' });
    expect(write.isError).toBe(false);
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('written');
    const list = await conn.callTool('list_directory', { path: dir });
    expect(list.text).toContain('new.txt');
  });

  it('returns the server-side refusal outside the root as an error result', async () => {
    const outside = await conn.callTool('read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(outside.text).toMatch(/denied|outside|not allowed/i);
  });
});
