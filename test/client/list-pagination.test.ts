import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry, type RawServerEntry } from '../../src/core/server-config.js';
import { startMisbehavingHttp } from '../fixtures/misbehaving-http.js';
import { misbehavingBin } from '../fixtures/paths.js';
import type { PagingMode } from '../fixtures/raw-mcp.js';

/**
 * Servers whose `nextCursor` never ends the list: one walk, stopped at the first cursor it
 * already followed or at the page cap, and the list marked truncated with the reason — counted
 * on the server, which reports the requests it saw (`stats`).
 */
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The 7 tools of the first page of raw-mcp.ts; every later page adds one new tool. */
const FIRST_PAGE = 7;

async function connect(entry: RawServerEntry, logs: LogEntry[] = []): Promise<Connection> {
  const conn = new Connection({
    config: normalizeServerEntry(entry),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (e) => logs.push(e),
  });
  open.push(conn);
  await conn.connect();
  return conn;
}

async function listRequests(conn: Connection): Promise<number> {
  const stats = JSON.parse((await conn.callTool('stats')).text) as Record<string, number>;
  return stats['tools/list'] ?? 0;
}

describe.each([
  // mode, pages requested, reason, items
  ['pages-same-cursor', 2, 'cursor-loop', FIRST_PAGE],
  ['pages-same-cursor-new-items', 2, 'cursor-loop', FIRST_PAGE + 1],
  ['pages-cursor-cycle', 3, 'cursor-loop', FIRST_PAGE + 2],
  ['pages-endless', 50, 'page-cap', FIRST_PAGE + 49],
] as const)('a stdio server that pages as %s', (mode, pages, reason, items) => {
  it(`costs ${pages} requests, once, and the list says it is incomplete (${reason})`, async () => {
    const logs: LogEntry[] = [];
    const conn = await connect(
      {
        name: 'pager',
        command: process.execPath,
        args: [misbehavingBin, '--mode', mode],
        protocol: 'legacy',
      },
      logs,
    );
    const list = await conn.listTools();
    expect(list.truncated).toBe(true);
    expect(list.truncation).toEqual({ reason, pages });
    expect(list.items).toHaveLength(items);
    expect(await listRequests(conn)).toBe(pages);
    expect(logs.some((l) => l.level === 'warning' && l.text.includes(`stopped after ${pages} pages`))).toBe(
      true,
    );
  });
});

describe.each(['legacy', 'modern'] as const)('an HTTP server whose cursors go round (%s era)', (protocol) => {
  it('is stopped at the first cursor it already followed', async () => {
    const paging: PagingMode = 'cursor-cycle';
    const server = await startMisbehavingHttp({ mode: 'json', paging });
    try {
      const conn = await connect({ name: 'pager', url: server.url, protocol });
      const list = await conn.listTools();
      expect(list.truncation).toEqual({ reason: 'cursor-loop', pages: 3 });
      expect(list.items).toHaveLength(FIRST_PAGE + 2);
      expect(server.requests['tools/list']).toBe(3);
    } finally {
      await server.close();
    }
  });
});
