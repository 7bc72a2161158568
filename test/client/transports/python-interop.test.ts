import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { processesInGroup } from '../../helpers/servers.js';

/**
 * Interop with a server written in Python, run by a real Python interpreter: a banner box
 * on stderr, print() noise on stdout glued to the next message by Python's block buffer,
 * Python's JSON (spaces after separators, non-ASCII as \u escapes), a log record before the
 * initialize answer, -32601 for what it does not know (our 2026-07-28 probe included).
 * Python's packages are not reachable here, so the server (fixtures/python/fastmcp_like.py)
 * reproduces those habits with the standard library only.
 */
const SERVER = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/python/fastmcp_like.py');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' }).status === 0;
if (!python)
  console.warn(
    'python-interop: python3 is not installed; install it (apt-get install python3) to run these tests',
  );

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connection(protocol: 'auto' | 'legacy', logs: LogEntry[]): Connection {
  const conn = new Connection({
    config: normalizeServerEntry({ name: 'py', command: 'python3', args: [SERVER], protocol }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => logs.push(entry),
  });
  open.push(conn);
  return conn;
}

describe.skipIf(!python)('a Python MCP server over stdio', () => {
  it.each(['auto', 'legacy'] as const)(
    'connects (protocol %s), lists and calls, with its noise logged, and leaves no process',
    async (protocol) => {
      const logs: LogEntry[] = [];
      const conn = connection(protocol, logs);
      await conn.connect();
      expect(conn.protocolVersion).toBe('2025-06-18');
      expect(conn.instructions).toBe('Greets people.');
      const tools = await conn.listTools();
      expect(tools.items.map((t) => t.name)).toEqual(['greet']);
      const result = await conn.callTool('greet', { name: 'Zoë' });
      expect(result.text).toBe('Héllo, Zoë!');
      // A second call after the glued print() noise: the framing held.
      expect((await conn.callTool('greet', { name: '世界' })).text).toBe('Héllo, 世界!');
      const refused = await conn.callTool('nope', {}).catch((e: unknown) => e);
      expect(String(refused)).toContain('Unknown tool: nope');

      const noise = logs.filter((e) => e.source === 'stdout').map((e) => e.text);
      expect(noise.some((t) => t.includes("Starting MCP server 'python-greeter'"))).toBe(true);
      expect(noise.some((t) => t.includes('INFO:greeter:greeting Zoë'))).toBe(true);
      const stderr = logs.filter((e) => e.source === 'stderr').map((e) => e.text);
      expect(stderr).toContain('│ Server: python-greeter                       │');
      const serverLog = logs.filter((e) => e.source === 'server').map((e) => e.text);
      expect(serverLog).toContain('initializing');

      const pid = (conn.activeTransport as unknown as { pid: number }).pid;
      await conn.close();
      expect(await processesInGroup(pid)).toEqual([]);
    },
    60_000,
  );
});
