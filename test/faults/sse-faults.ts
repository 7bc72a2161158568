import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { SwitchboardError } from '../../src/core/errors.js';
import { eventually } from '../helpers/wait.js';
import { AT_ONCE_MS } from './fault-table.js';
import type { SseFault, SseTrial } from './http-trial.js';
import { failedAtOnce, timed } from './judges.js';

/**
 * The legacy HTTP+SSE rows (2024-11-05 transport) of the fault matrix, against the
 * misbehaving SSE fixture in this process (test/fixtures/misbehaving-sse.ts): answers come on
 * one long-lived event stream, so its loss is the server's loss.
 */

async function pendingFailsWhen(t: SseTrial, trigger: () => number | Promise<number>): Promise<void> {
  await t.conn.connect();
  const pending = timed(t.conn.callTool('hang', {}));
  expect((await t.conn.callTool('echo', { text: 'read' })).text).toBe('read');
  const at = await trigger();
  failedAtOnce(await pending, at, ['UPSTREAM_DISCONNECTED'], t.name);
}

async function answered(t: SseTrial, tool: string, args: Record<string, unknown>, text: string) {
  await t.conn.connect();
  expect((await t.conn.callTool(tool, args)).text).toBe(text);
  expect(t.conn.state).toBe('connected');
}

/** One call fails at once with `codes`; the connection stays and answers the next. */
async function oneCallFails(
  t: SseTrial,
  args: Record<string, unknown>,
  codes: readonly SwitchboardError['code'][],
): Promise<SwitchboardError> {
  await t.conn.connect();
  const sent = performance.now();
  const error = failedAtOnce(await timed(t.conn.callTool('post-error', args)), sent, codes, t.name);
  expect((await t.conn.callTool('echo', { text: 'next' })).text).toBe('next');
  return error;
}

/** The connection is seen gone within AT_ONCE_MS of `at`. */
async function seenGone(t: SseTrial, at: number): Promise<void> {
  await eventually(
    () => t.conn.state,
    (state) => state === 'disconnected',
    { what: 'saw the connection drop', timeoutMs: AT_ONCE_MS * 2 },
  );
  expect(performance.now() - at).toBeLessThan(AT_ONCE_MS);
}

export const SSE_FAULTS: readonly SseFault[] = [
  {
    id: 'sse-refused',
    transport: 'sse',
    class: 'crash-before-initialize',
    promise: 'A legacy SSE server that is not listening fails connect() at once.',
    start: { server: {}, refused: true },
    judge: async (t) => {
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.connect()), sent, ['CONNECT_FAILED'], t.name);
    },
  },
  {
    id: 'sse-endpoint-never-sent',

    transport: 'sse',
    class: 'hanging-initialize',
    promise:
      'A legacy SSE server that never names its endpoint fails connect() at its connect timeout (1 s).',
    start: { server: { endpoint: 'never' }, connectS: 1 },
    judge: async (t) => {
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.connect()), sent + 1000, ['CONNECT_TIMEOUT', 'CONNECT_FAILED'], t.name);
    },
  },
  {
    id: 'sse-killed-mid-call',

    transport: 'sse',
    class: 'crash-mid-call',
    promise: 'A legacy SSE server that dies (every socket reset) with a call pending fails it at once.',
    start: { server: {} },
    judge: (t) => pendingFailsWhen(t, () => t.server().kill()),
  },
  {
    id: 'sse-stream-ends-mid-call',

    transport: 'sse',
    class: 'sse-stream',
    promise: 'The event stream ending (FIN) while calls are pending fails them at once.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const pending = timed(t.conn.callTool('hang', {}));
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.callTool('drop', {})), sent, ['UPSTREAM_DISCONNECTED'], t.name);
      failedAtOnce(await pending, sent, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'sse-stream-reset-mid-call',

    transport: 'sse',
    class: 'connection-reset',
    promise: 'The event stream reset while a call is pending fails it at once.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.callTool('reset', {})), sent, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'sse-post-500',
    transport: 'sse',
    class: 'http-status',
    promise: 'HTTP 500 on the POST of a call fails that call at once; the connection goes on.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      failedAtOnce(
        await timed(t.conn.callTool('post-error', {})),
        sent,
        ['UPSTREAM_HTTP', 'UPSTREAM_ERROR'],
        t.name,
      );
      expect((await t.conn.callTool('echo', { text: 'next' })).text).toBe('next');
    },
  },
  {
    id: 'sse-event-not-json',
    transport: 'sse',
    class: 'framing',
    promise: 'An event whose data is not JSON is skipped; the answer after it is delivered.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('garbage', {})).text).toBe('after garbage');
    },
  },
  {
    id: 'sse-malformed-answer',

    transport: 'sse',
    class: 'malformed-answer',
    promise: 'A malformed answer (result not an object) fails its call at once, not at the timeout.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      const outcome = await timed(t.conn.callTool('malformed', { shape: 'result-not-object' }));
      failedAtOnce(outcome, sent, ['UPSTREAM_PROTOCOL', 'UPSTREAM_ERROR', 'UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'sse-initialize-stream-reset',
    transport: 'sse',
    class: 'crash-during-initialize',
    promise: 'A legacy SSE server whose event stream resets on initialize fails connect() at once.',
    start: { server: { initialize: 'reset' } },
    judge: async (t) => {
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.connect()), sent, ['CONNECT_FAILED', 'UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'sse-endpoint-other-origin',
    transport: 'sse',
    class: 'malformed-answer',
    promise: 'An endpoint event that names another origin fails connect() at once; nothing is posted there.',
    start: { server: { endpoint: 'other-origin' } },
    judge: async (t) => {
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.connect()), sent, ['CONNECT_FAILED'], t.name);
    },
  },
  {
    id: 'sse-killed-after-initialize',
    transport: 'sse',
    class: 'crash-after-initialize',
    promise: 'A legacy SSE server that died after the handshake fails the next call at once.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      t.server().kill();
      await t.server().close();
      const sent = performance.now();
      failedAtOnce(
        await timed(t.conn.callTool('echo', { text: 'x' })),
        sent,
        ['UPSTREAM_DISCONNECTED'],
        t.name,
      );
    },
  },
  {
    id: 'sse-killed-between-calls',
    transport: 'sse',
    class: 'crash-between-calls',
    promise:
      'A legacy SSE server that dies while idle is seen gone at once, and the next call fails at once.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'before' })).text).toBe('before');
      await seenGone(t, t.server().kill());
      const sent = performance.now();
      failedAtOnce(
        await timed(t.conn.callTool('echo', { text: 'after' })),
        sent,
        ['UPSTREAM_DISCONNECTED'],
        t.name,
      );
    },
  },
  {
    id: 'sse-reset-while-paging',
    transport: 'sse',
    class: 'crash-while-paging',
    promise: 'A legacy SSE server that dies while its tool list is paged fails the list at once.',
    start: { server: { paging: 'endless', resetOnPage2: true } },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.listTools()), sent, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  ...(['same-cursor', 'cursor-cycle', 'endless'] as const).map(
    (paging): SseFault => ({
      id: `sse-pages-${paging}`,
      transport: 'sse',
      class: 'pagination-loop',
      promise: `A legacy SSE tool list that pages forever (${paging}) ends at the page cap, marked truncated, and the connection goes on.`,
      start: { server: { paging }, listPageCap: 10 },
      judge: async (t) => {
        await t.conn.connect();
        const list = await t.conn.listTools();
        expect(list.truncated).toBe(true);
        // At most the cap: a cursor seen before ends the walk sooner.
        expect(t.server().requests['tools/list']).toBeLessThanOrEqual(10);
        expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
      },
    }),
  ),
  ...([400, 403, 503] as const).map(
    (status): SseFault => ({
      id: `sse-post-${status}`,
      transport: 'sse',
      class: 'http-status',
      promise: `HTTP ${status} on the POST of a call fails that call at once with the status; the connection goes on.`,
      start: { server: {} },
      judge: async (t) => {
        const error = await oneCallFails(t, { status }, ['UPSTREAM_HTTP']);
        expect(error.details.status).toBe(status);
      },
    }),
  ),
  {
    id: 'sse-post-html-502',
    transport: 'sse',
    class: 'http-status',
    promise:
      'A 502 with a 200 KiB HTML page on the POST fails the call at once with a message short enough to read.',
    start: { server: {} },
    judge: async (t) => {
      const error = await oneCallFails(t, { status: 502, html: true }, ['UPSTREAM_HTTP']);
      expect(error.details.status).toBe(502);
      expect(error.message.length).toBeLessThan(600);
    },
  },
  {
    id: 'sse-crlf-framing',
    transport: 'sse',
    class: 'framing',
    promise: 'An answer framed with CRLF line ends is delivered.',
    start: { server: {} },
    judge: (t) => answered(t, 'crlf', {}, 'answered crlf'),
  },
  {
    id: 'sse-answer-dribbled',
    transport: 'sse',
    class: 'slow-body',
    promise: 'An answer event written in 20 pieces over a second is delivered whole.',
    start: { server: {} },
    judge: (t) => answered(t, 'dribble', { ms: 1000 }, 'answered dribble'),
  },
  {
    id: 'sse-endless-event',
    transport: 'sse',
    class: 'slow-body',
    promise: 'An event begun and never finished fails its call at its timeout (300 ms), not later.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      const outcome = await timed(t.conn.callTool('endless', {}, { timeoutMs: 300 }));
      failedAtOnce(outcome, sent + 300, ['REQUEST_TIMEOUT'], t.name);
    },
  },
  {
    id: 'sse-huge-answer',
    transport: 'sse',
    class: 'size',
    promise: 'A 20 MiB answer event is delivered whole.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('huge', { mb: 20 })).text?.length).toBe(20 * 1024 * 1024);
    },
  },
  {
    id: 'sse-duplicate-answer',
    transport: 'sse',
    class: 'ids',
    promise: 'Two answers to one call answer it once; the connection goes on.',
    start: { server: {} },
    judge: async (t) => {
      await answered(t, 'malformed', { shape: 'duplicate' }, 'first');
      expect((await t.conn.callTool('echo', { text: 'next' })).text).toBe('next');
    },
  },
  {
    id: 'sse-stray-id',
    transport: 'sse',
    class: 'ids',
    promise: 'An answer to an id nobody asked for is ignored; the right one is delivered.',
    start: { server: {} },
    judge: (t) => answered(t, 'malformed', { shape: 'unknown-id-first' }, 'valid'),
  },
  {
    id: 'sse-late-answer',
    transport: 'sse',
    class: 'ids',
    promise: 'An answer after its call timed out is dropped; the next call gets its own.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      const outcome = await timed(t.conn.callTool('late', { ms: 800, tag: 'stale' }, { timeoutMs: 200 }));
      failedAtOnce(outcome, sent + 200, ['REQUEST_TIMEOUT'], t.name);
      expect((await t.conn.callTool('late', { ms: 1200, tag: 'fresh' })).text).toBe('fresh');
    },
  },
  {
    id: 'sse-log-flood',
    transport: 'sse',
    class: 'flood',
    promise: 'A flood of 5,000 log notifications is logged and the answer delivered.',
    start: { server: {} },
    judge: async (t) => {
      await answered(t, 'flood', { count: 5000, kind: 'log' }, 'flooded 5000');
      await eventually(
        () => t.logs.filter((l) => l.source === 'server').length,
        (n) => n === 5000,
        { what: 'saw 5000 server logs', timeoutMs: 5000 },
      );
    },
  },
  {
    id: 'sse-progress-flood',
    transport: 'sse',
    class: 'flood',
    promise: 'A flood of 5,000 progress notifications reaches the caller and the answer is delivered.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      let seen = 0;
      const result = await t.conn.callTool(
        'flood',
        { count: 5000, kind: 'progress' },
        { onProgress: () => void seen++ },
      );
      expect(result.text).toBe('flooded 5000');
      expect(seen).toBe(5000);
    },
  },
  {
    id: 'sse-session-forgotten',
    transport: 'sse',
    class: 'session',
    promise:
      'A server that forgot the session (404 on the POST) is reconnected once, and the call goes through.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('forget-sessions', {})).text).toBe('forgotten');
      expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
      expect(t.server().requests.initialize).toBe(2);
      expect(t.conn.state).toBe('connected');
    },
  },
  {
    id: 'sse-server-restarted',
    transport: 'sse',
    class: 'session',
    promise:
      'A server restart is seen at once (the event stream breaks); the next call fails at once, and a reconnect goes through.',
    start: { server: {} },
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'before' })).text).toBe('before');
      const restarting = performance.now();
      await t.restart();
      await seenGone(t, restarting);
      const sent = performance.now();
      failedAtOnce(
        await timed(t.conn.callTool('echo', { text: 'x' })),
        sent,
        ['UPSTREAM_DISCONNECTED'],
        t.name,
      );
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
    },
  },
];
