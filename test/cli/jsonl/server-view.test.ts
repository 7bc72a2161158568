import { describe, expect, it } from 'vitest';
import { PROTOCOL_STATES, STATE_MAP, serverViews } from '../../../src/cli/jsonl/server-view.js';
import type { CatalogTool } from '../../../src/host/catalog/catalog.js';
import type { ServerStatus } from '../../../src/host/host.js';
import type { ServerState } from '../../../src/host/supervisor/supervisor.js';

const status = (name: string, state: ServerState, extra: Partial<ServerStatus> = {}): ServerStatus => ({
  name,
  transport: 'stdio',
  state,
  tools: 0,
  toolsListed: 0,
  resources: 0,
  prompts: 0,
  source: '/p/switchboard.json',
  rejectedTools: [],
  ...extra,
});

const tool = (server: string, name: string, description?: string): CatalogTool => ({
  name: `mcp__${server}__${name}`,
  server,
  hash: 'h',
  tool: { name, inputSchema: { type: 'object' }, ...(description !== undefined && { description }) },
});

describe('serverViews', () => {
  it('maps every host state onto a protocol state, reconnecting as connecting', () => {
    const hostStates: ServerState[] = [
      'connecting',
      'connected',
      'reconnecting',
      'needs_auth',
      'failed',
      'disabled',
    ];
    for (const s of hostStates) expect(PROTOCOL_STATES).toContain(STATE_MAP[s]);
    expect(STATE_MAP.reconnecting).toBe('connecting');
    expect(new Set(Object.values(STATE_MAP))).toEqual(new Set(PROTOCOL_STATES));
  });

  it("lists each connected server's tools with descriptions, and errors where there are some", () => {
    const error = { code: 'CONNECT_FAILED', message: 'it exited; check its command' };
    const views = serverViews(
      [
        status('a', 'connected', { source: 'jsonl' }),
        status('b', 'failed', { error }),
        status('c', 'reconnecting', { error }),
      ],
      [tool('a', 'one', 'The first.'), tool('a', 'two'), tool('c', 'stale')],
    );
    expect(views).toEqual([
      {
        name: 'a',
        transport: 'stdio',
        state: 'connected',
        source: 'jsonl',
        tools: [
          { name: 'one', description: 'The first.' },
          { name: 'two', description: '' },
        ],
      },
      { name: 'b', transport: 'stdio', state: 'failed', source: '/p/switchboard.json', tools: [], error },
      // The catalog may still hold a dropped server's tools for a moment; they are not offered.
      { name: 'c', transport: 'stdio', state: 'connecting', source: '/p/switchboard.json', tools: [], error },
    ]);
  });
});
