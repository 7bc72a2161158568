import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAuditEntry, ApiEvent, ApiLogLine, ApiPage } from '../../../src/gateway/api/api-types.js';
import { eventually } from '../../helpers/wait.js';
import { type ApiUnderTest, kitchen, nextEvent, startApiUnderTest } from './api-harness.js';

/**
 * What the API reads back from the store and the log files, against a real host: server
 * events (listed, and live on the stream under the same ids), the audit log page by page,
 * and a server's log, tailed and followed.
 */
let under: ApiUnderTest;

beforeAll(async () => {
  under = await startApiUnderTest({
    servers: [kitchen('kitchen')],
    ready: ['mcp__kitchen__notify'],
    host: { governance: { mode: 'full-auto' } },
  });
}, 60_000);

afterAll(async () => {
  await under?.close();
});

const call = (tool: string, args: Record<string, unknown> = {}) =>
  under.api.json(`/api/tools/mcp__kitchen__${tool}/call`, { body: { arguments: args } });
const notify = (n: number) => call('notify', { method: 'event/test', params: { n }, unsolicited: true });

describe('events', () => {
  it('lists stored events newest first, page by page, and streams new ones under the same ids', async () => {
    const stream = await under.api.stream('/api/stream');
    try {
      await nextEvent(stream, 'servers');
      for (let n = 1; n <= 3; n++) await notify(n);
      const live: { data: ApiEvent; id?: string }[] = [];
      for (let n = 1; n <= 3; n++) live.push(await nextEvent<ApiEvent>(stream, 'event'));
      expect(live.map((e) => (e.data.params as { n: number }).n)).toEqual([1, 2, 3]);
      expect(live.every((e) => e.id === String(e.data.id))).toBe(true);

      const first = await under.api.json<ApiPage<ApiEvent>>('/api/events?server=kitchen&limit=2');
      expect(first.items.map((e) => e.id)).toEqual([live[2]!.data.id, live[1]!.data.id]);
      expect(first.items[0]).toMatchObject({ server: 'kitchen', method: 'event/test', params: { n: 3 } });
      expect(Number.isNaN(Date.parse(first.items[0]!.receivedAt))).toBe(false);
      const second = await under.api.json<ApiPage<ApiEvent>>(
        `/api/events?limit=2&before=${first.nextCursor}`,
      );
      expect(second.items.map((e) => e.id)).toEqual([live[0]!.data.id]);
      expect(second.nextCursor).toBeUndefined();
    } finally {
      await stream.cancel();
    }
  });

  it('refuses a page size beyond 500', async () => {
    const error = await under.api.error('/api/events?limit=501', {}, 400);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'limit' } });
  });
});

describe('audit', () => {
  it('pages through the audit log with filters', async () => {
    for (let i = 0; i < 3; i++) await call('echo', { text: `audit ${i}` });
    const query = '/api/audit?action=tool_call&outcome=ok&actor=dashboard%3Alocal&server=kitchen';
    const seen: ApiAuditEntry[] = [];
    let cursor: number | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await under.api.json<ApiPage<ApiAuditEntry>>(
        `${query}&limit=2${cursor === undefined ? '' : `&before=${cursor}`}`,
      );
      expect(result.items.length).toBeLessThanOrEqual(2);
      seen.push(...result.items);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    const echoes = seen.filter((e) => (e.details as { tool: string }).tool === 'echo');
    expect(echoes).toHaveLength(3);
    expect(seen.every((e) => e.outcome === 'ok' && e.actor === 'dashboard:local')).toBe(true);
    expect(seen.map((e) => e.id)).toEqual([...seen.map((e) => e.id)].sort((a, b) => b - a));
    const future = await under.api.json<ApiPage<ApiAuditEntry>>('/api/audit?since=2999-01-01T00:00:00Z');
    expect(future.items).toEqual([]);
    const bad = await under.api.error('/api/audit?since=yesterday', {}, 400);
    expect(bad.message).toContain('ISO-8601');
  });
});

describe('logs', () => {
  it("tails a server's log and follows it: a line written after subscribing arrives", async () => {
    await call('log', { level: 'warning', message: 'before following' });
    const tail = await eventually(
      () =>
        under.api.json<{ server: string; file: string; lines: ApiLogLine[] }>('/api/logs/kitchen?lines=50'),
      (t) => t.lines.some((l) => l.text.includes('before following')),
      { what: 'logged the first line' },
    );
    expect(tail.file).toBe(under.host.logFile('kitchen'));
    const line = tail.lines.find((l) => l.text.includes('before following'));
    expect(line).toMatchObject({ source: 'server', level: 'warning', at: expect.stringMatching(/Z$/) });
    expect((await under.api.json<{ lines: ApiLogLine[] }>('/api/logs/kitchen?lines=1')).lines).toHaveLength(
      1,
    );

    const follow = await under.api.stream('/api/logs/kitchen/follow?lines=5');
    try {
      const early = await nextEvent<ApiLogLine>(follow, 'log', (l) => l.text.includes('before following'));
      expect(early.data.level).toBe('warning');
      await call('log', { level: 'error', message: 'after following' });
      const late = await nextEvent<ApiLogLine>(follow, 'log', (l) => l.text.includes('after following'));
      expect(late.data).toMatchObject({ source: 'server', level: 'error' });
    } finally {
      await follow.cancel();
    }
    await eventually(
      () => under.host.listenerCount('log'),
      (n) => n === 0,
      { what: 'let go of the log' },
    );
    expect((await under.api.error('/api/logs/nope', {}, 404)).code).toBe('NOT_FOUND');
  });
});
