import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/host/catalog/catalog.js';
import { serverAway } from '../../src/host/host-errors.js';
import { missingTool } from '../../src/host/missing-names.js';
import type { ServerState } from '../../src/host/supervisor/supervisor.js';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });

describe('missingTool: unknown, or its server reconnecting', () => {
  const away = buildCatalog([{ server: 'flaky', tools: [tool('echo')] }], { scan: 'off' });
  const live = buildCatalog([{ server: 'steady', tools: [tool('add')] }], { away });

  it('a tool of a reconnecting server is retryable, named with its server', () => {
    const states = new Map<string, ServerState>([
      ['flaky', 'reconnecting'],
      ['steady', 'connected'],
    ]);
    const error = missingTool(live, 'mcp__flaky__echo', states);
    expect(error.code).toBe('UPSTREAM_RECONNECTING');
    expect(error.details).toMatchObject({ server: 'flaky', state: 'reconnecting', retryable: true });
    expect(error.message).toContain('Server "flaky" is reconnecting');
    expect(error.message).toContain('Retry in a moment');
  });

  it('a name no server offered is not found', () => {
    const error = missingTool(live, 'mcp__nobody__echo', new Map([['flaky', 'reconnecting']]));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('No tool "mcp__nobody__echo"');
  });

  it('a tool of a server that gave up is not retryable', () => {
    const error = missingTool(live, 'mcp__flaky__echo', new Map([['flaky', 'failed']]));
    expect(error.code).toBe('UPSTREAM_DISCONNECTED');
    expect(error.message).toContain('is not connected');
  });

  it('a server still starting is known by the prefix of its tool names', () => {
    const empty = buildCatalog([]);
    const starting = new Map<string, ServerState>([['new-one', 'connecting']]);
    expect(missingTool(empty, 'mcp__new-one__anything', starting).code).toBe('UPSTREAM_RECONNECTING');
    expect(missingTool(empty, 'mcp__new-one__anything', starting).message).toContain('is starting');
    // Another server's prefix is not this one's.
    expect(missingTool(empty, 'mcp__new-one2__x', starting).code).toBe('NOT_FOUND');
    // Once it is connected, a name it does not list is unknown.
    expect(missingTool(empty, 'mcp__new-one__x', new Map([['new-one', 'connected']])).code).toBe('NOT_FOUND');
  });
});

describe('serverAway', () => {
  it('says what each state means and whether to retry', () => {
    const cases: [ServerState, string, RegExp][] = [
      ['connecting', 'UPSTREAM_RECONNECTING', /is starting/],
      ['reconnecting', 'UPSTREAM_RECONNECTING', /is reconnecting/],
      ['connected', 'UPSTREAM_RECONNECTING', /being listed again/],
      ['needs_auth', 'UPSTREAM_DISCONNECTED', /needs a login/],
      ['disabled', 'UPSTREAM_DISCONNECTED', /is disabled/],
      ['failed', 'UPSTREAM_DISCONNECTED', /is not connected/],
    ];
    for (const [state, code, text] of cases) {
      const error = serverAway('s', state, 'resource "x://1"');
      expect(error.code, state).toBe(code);
      expect(error.message, state).toMatch(text);
      expect(error.message, state).toContain('resource "x://1"');
    }
  });
});
