import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { SwitchboardError } from '../../src/core/errors.js';
import type { MisbehavingHttpOptions } from '../fixtures/misbehaving-http.js';
import { eventually } from '../helpers/wait.js';
import { AT_ONCE_MS } from './fault-table.js';
import type { HttpFault, HttpStart, HttpTrial } from './http-trial.js';
import { failedAtOnce, type Outcome, timed } from './judges.js';

/**
 * The Streamable HTTP rows of the fault matrix, judged through a Connection against the
 * misbehaving HTTP fixture in this process (test/fixtures/misbehaving-http.ts). A server's
 * death is `kill()`: every socket reset or ended at a moment the fixture returns.
 */

const start = (
  server: Omit<MisbehavingHttpOptions, 'port'>,
  protocol: 'legacy' | 'modern' = 'legacy',
  extra: Partial<HttpStart> = {},
): HttpStart => ({ server, protocol, ...extra });

/** Holds `count` calls open on SSE streams the server never answers; they come back boxed. */
async function held(t: HttpTrial, count: number): Promise<{ calls: Promise<Outcome<unknown>>[] }> {
  await t.conn.connect();
  const calls = Array.from({ length: count }, () => timed(t.conn.callTool('hold', {})));
  for (let i = 0; i < count; i++) await t.server().nextOpenResponse();
  return { calls };
}

async function killedMidCall(t: HttpTrial, how: 'reset' | 'end'): Promise<void> {
  const { calls } = await held(t, 5);
  const died = t.server().kill(how, { staggerMs: 20 });
  for (const call of calls) failedAtOnce(await call, died, ['UPSTREAM_DISCONNECTED'], t.name);
}

/** One call fails at once with `codes`; the connection stays connected and answers the next. */
async function oneCallFails(
  t: HttpTrial,
  tool: string,
  args: Record<string, unknown>,
  codes: readonly SwitchboardError['code'][],
): Promise<SwitchboardError> {
  await t.conn.connect();
  const sent = performance.now();
  const error = failedAtOnce(await timed(t.conn.callTool(tool, args)), sent, codes, t.name);
  expect(t.conn.state).toBe('connected');
  expect((await t.conn.callTool('echo', { text: 'next' })).text).toBe('next');
  return error;
}

/** The call ends at once: answered with `text`, or failed with a SwitchboardError — never the timeout. */
async function endsAtOnce(
  t: HttpTrial,
  tool: string,
  args: Record<string, unknown>,
  text: string,
): Promise<void> {
  await t.conn.connect();
  const sent = performance.now();
  const outcome = await timed(t.conn.callTool(tool, args));
  expect(outcome.at - sent).toBeLessThan(AT_ONCE_MS);
  if (outcome.error) failedAtOnce(outcome, sent, ['UPSTREAM_DISCONNECTED', 'UPSTREAM_PROTOCOL'], t.name);
  else expect((outcome.value as { text?: string }).text).toBe(text);
}

async function answered(
  t: HttpTrial,
  tool: string,
  args: Record<string, unknown>,
  text: string,
): Promise<void> {
  await t.conn.connect();
  expect((await t.conn.callTool(tool, args)).text).toBe(text);
  expect(t.conn.state).toBe('connected');
}

async function connectFailsAtOnce(
  t: HttpTrial,
  codes: readonly SwitchboardError['code'][],
): Promise<SwitchboardError> {
  const sent = performance.now();
  return failedAtOnce(await timed(t.conn.connect()), sent, codes, t.name);
}

export const HTTP_FAULTS: readonly HttpFault[] = [
  {
    id: 'http-refused',
    transport: 'http',
    class: 'crash-before-initialize',
    promise: 'A server that is not listening fails connect() at once with CONNECT_FAILED.',
    start: start({ mode: 'json' }, 'legacy', { refused: true }),
    judge: async (t) => void (await connectFailsAtOnce(t, ['CONNECT_FAILED'])),
  },
  {
    id: 'http-initialize-reset',
    transport: 'http',
    class: 'crash-during-initialize',
    promise: 'A server whose socket resets on initialize fails connect() at once with CONNECT_FAILED.',
    start: start({ mode: 'json', initialize: 'reset' }),
    judge: async (t) => void (await connectFailsAtOnce(t, ['CONNECT_FAILED'])),
  },
  {
    id: 'http-initialize-html-500',
    transport: 'http',
    class: 'http-status',
    promise: 'An HTML 500 page for initialize fails connect() at once, with the status in its details.',
    start: start({ mode: 'json', initialize: 'html-500' }),
    judge: async (t) => {
      const error = await connectFailsAtOnce(t, ['CONNECT_FAILED', 'UPSTREAM_HTTP']);
      expect(error.details.status).toBe(500);
    },
  },
  {
    id: 'http-hanging-initialize',
    transport: 'http',
    class: 'hanging-initialize',
    promise:
      'A server that never answers initialize fails connect() with CONNECT_TIMEOUT at its connect timeout (1 s).',
    start: start({ mode: 'json', initialize: 'hang' }, 'legacy', { connectS: 1 }),
    judge: async (t) => {
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.connect()), sent + 1000, ['CONNECT_TIMEOUT'], t.name);
    },
  },
  {
    id: 'http-killed-after-initialize',
    transport: 'http',
    class: 'crash-after-initialize',
    promise:
      'A server that died after the handshake fails the next call at once, with UPSTREAM_DISCONNECTED.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      await t.conn.connect();
      t.server().kill('reset');
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
    id: 'http-killed-mid-call-reset',
    transport: 'http',
    class: 'crash-mid-call',
    promise: 'A server that dies (TCP reset) with five calls pending on SSE streams fails them all at once.',
    start: start({ mode: 'json' }),
    judge: (t) => killedMidCall(t, 'reset'),
  },
  {
    id: 'http-killed-mid-call-fin',
    transport: 'http',
    class: 'crash-mid-call',
    promise: 'A server that dies (FIN) with five calls pending fails them all at once.',
    start: start({ mode: 'json' }),
    judge: (t) => killedMidCall(t, 'end'),
  },
  {
    id: 'http-killed-mid-call-modern',
    transport: 'http',
    class: 'crash-mid-call',
    promise: 'A 2026-07-28 server that dies with calls pending fails them all at once.',
    start: start({ mode: 'json' }, 'modern'),
    judge: (t) => killedMidCall(t, 'reset'),
  },
  {
    id: 'http-killed-between-calls',
    transport: 'http',
    class: 'crash-between-calls',
    promise:
      'A server that dies while idle (its GET stream open) is seen gone at once, and the next call fails at once.',
    start: start({ mode: 'dribble-get' }),
    judge: async (t) => {
      await t.conn.connect();
      await t.server().nextOpenResponse();
      expect((await t.conn.callTool('echo', { text: 'before' })).text).toBe('before');
      const disconnected = new Promise<number>((resolve) =>
        t.conn.once('disconnected', () => resolve(performance.now())),
      );
      const died = t.server().kill('reset');
      expect((await disconnected) - died).toBeLessThan(AT_ONCE_MS);
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
    id: 'http-reset-while-paging',
    transport: 'http',
    class: 'crash-while-paging',
    promise: 'A server that dies while its tool list is paged fails the list at once.',
    start: start({ mode: 'json', paging: 'endless', resetOnPage2: true }),
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.listTools()), sent, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  ...([400, 403, 500, 503] as const).map(
    (status): HttpFault => ({
      id: `http-status-${status}`,
      transport: 'http',
      class: 'http-status',
      promise: `HTTP ${status} on a call fails that call at once with UPSTREAM_HTTP (status in details); the others go on.`,
      start: start({ mode: 'json' }),
      judge: async (t) => {
        const error = await oneCallFails(t, 'http-error', { status }, ['UPSTREAM_HTTP']);
        expect(error.details.status).toBe(status);
      },
    }),
  ),
  {
    id: 'http-html-error-page',
    transport: 'http',
    class: 'http-status',
    promise:
      'A 502 with a 200 KiB HTML page fails the call at once with UPSTREAM_HTTP and a message short enough to read.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      const error = await oneCallFails(t, 'html-error', { status: 502 }, ['UPSTREAM_HTTP']);
      expect(error.details.status).toBe(502);
      expect(error.message.length).toBeLessThan(600);
    },
  },
  {
    id: 'http-html-where-json-belongs',
    transport: 'http',
    class: 'malformed-answer',
    promise: 'A 200 HTML page where a JSON-RPC answer belongs fails the call at once; the connection stays.',
    start: start({ mode: 'json' }),
    judge: async (t) => void (await oneCallFails(t, 'html-page', {}, ['UPSTREAM_PROTOCOL', 'UPSTREAM_HTTP'])),
  },
  {
    id: 'http-202-for-request',
    transport: 'http',
    class: 'malformed-answer',
    promise:
      'A request answered with 202 Accepted and no body (as a notification is) fails at once with UPSTREAM_PROTOCOL; the connection stays.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      const error = await oneCallFails(t, 'accepted', {}, ['UPSTREAM_PROTOCOL']);
      expect(error.message).toContain('202');
    },
  },
  {
    id: 'http-json-answers-another-id',
    transport: 'http',
    class: 'malformed-answer',
    promise:
      'A JSON body that answers another id and not the request fails it at once with UPSTREAM_PROTOCOL; the connection stays.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      const error = await oneCallFails(t, 'json-other-id', {}, ['UPSTREAM_PROTOCOL']);
      expect(error.message).toContain('answered no request');
    },
  },
  {
    id: 'http-reset-one-call',
    transport: 'http',
    class: 'connection-reset',
    promise:
      'A connection reset on a call fails it at once with UPSTREAM_DISCONNECTED, and a new connect works.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      failedAtOnce(await timed(t.conn.callTool('reset', {})), sent, ['UPSTREAM_DISCONNECTED'], t.name);
      // A reset is a sign the server is gone: the connection drops at once, and connects again.
      await eventually(
        () => t.conn.state,
        (s) => s === 'disconnected',
        {
          what: 'saw the connection drop',
          timeoutMs: AT_ONCE_MS,
        },
      );
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'again' })).text).toBe('again');
    },
  },
  {
    id: 'http-sse-ends-unanswered',
    transport: 'http',
    class: 'sse-stream',
    promise: 'An SSE response that ends without the answer fails that call at once; the others go on.',
    start: start({ mode: 'json' }),
    judge: async (t) => void (await oneCallFails(t, 'end-stream', {}, ['UPSTREAM_DISCONNECTED'])),
  },
  {
    id: 'http-sse-drops-after-priming',
    transport: 'http',
    class: 'sse-stream',
    promise:
      'A resumable SSE response that drops after its priming event (and cannot be resumed: GET is 405) fails that call at once.',
    start: start({ mode: 'json' }),
    judge: async (t) =>
      void (await oneCallFails(t, 'drop-stream', { priming: true }, ['UPSTREAM_DISCONNECTED'])),
  },
  {
    id: 'http-sse-not-json-event',
    transport: 'http',
    class: 'sse-stream',
    promise:
      'An SSE event whose data is not JSON does not lose the call: it ends at once, answered or failed.',
    start: start({ mode: 'json' }),
    judge: (t) => endsAtOnce(t, 'bad-sse', { shape: 'not-json' }, 'answered bad-sse'),
  },
  ...(['crlf', 'split', 'multi-line-data'] as const).map(
    (shape): HttpFault => ({
      id: `http-sse-${shape}`,
      transport: 'http',
      class: 'sse-stream',
      promise: `An answer in valid but unusual SSE framing (${shape}) is delivered.`,
      start: start({ mode: 'json' }),
      judge: (t) => answered(t, 'bad-sse', { shape }, 'answered bad-sse'),
    }),
  ),
  ...(['no-blank-line', 'unknown-event'] as const).map(
    (shape): HttpFault => ({
      id: `http-sse-${shape}`,
      transport: 'http',
      class: 'sse-stream',
      promise: `An SSE stream that ends after a broken event (${shape}) ends its call at once, answered or failed.`,
      start: start({ mode: 'json' }),
      judge: (t) => endsAtOnce(t, 'bad-sse', { shape }, 'answered bad-sse'),
    }),
  ),
  {
    id: 'http-server-restarted',
    transport: 'http',
    class: 'session',
    promise:
      'After a server restart (its sessions lost), the next call goes through: its 404 re-initializes the session once.',
    start: start({ mode: 'json', sessions: 'enforced' }),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'before' })).text).toBe('before');
      const fresh = await t.restart();
      expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
      expect(fresh.requests.initialize).toBe(1);
      expect(t.conn.state).toBe('connected');
    },
  },
  {
    id: 'http-session-expired',
    transport: 'http',
    class: 'session',
    promise: 'An expired session (404) is re-initialized once and the call goes through.',
    start: start({ mode: 'json', sessions: 'enforced' }),
    judge: async (t) => {
      await t.conn.connect();
      await t.conn.callTool('forget-sessions', {});
      expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
      expect(t.server().requests.initialize).toBe(2);
    },
  },
  {
    id: 'http-session-always-404',
    transport: 'http',
    class: 'session',
    promise:
      'A server that answers 404 to every request of its session fails connect() at once with the status, with no re-initialize loop.',
    start: start({ mode: 'json', sessions: 'expire-always' }),
    judge: async (t) => {
      const error = await connectFailsAtOnce(t, ['UPSTREAM_HTTP', 'CONNECT_FAILED']);
      expect(error.details.status).toBe(404);
      expect(t.server().requests.initialize ?? 0).toBeLessThanOrEqual(2);
    },
  },
  ...(['same-cursor', 'cursor-cycle', 'endless'] as const).map(
    (paging): HttpFault => ({
      id: `http-pages-${paging}`,
      transport: 'http',
      class: 'pagination-loop',
      promise: `A tool list that pages forever (${paging}) ends, marked truncated, and the connection goes on.`,
      start: start({ mode: 'json', paging }, 'legacy', { listPageCap: 10 }),
      judge: async (t) => {
        await t.conn.connect();
        const list = await t.conn.listTools();
        expect(list.truncated).toBe(true);
        expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
      },
    }),
  ),
  {
    id: 'http-duplicate-id-in-batch',
    transport: 'http',
    class: 'ids',
    promise: 'Two answers to one call in one JSON body answer it once; the connection goes on.',
    start: start({ mode: 'json' }),
    judge: (t) => answered(t, 'malformed', { shape: 'duplicate' }, 'first'),
  },
  {
    id: 'http-stray-id-on-sse',
    transport: 'http',
    class: 'ids',
    promise:
      'An answer to an id nobody asked for, on the call’s SSE stream, is ignored; the right one is delivered.',
    start: start({ mode: 'sse' }),
    judge: (t) => answered(t, 'malformed', { shape: 'unknown-id-first' }, 'valid'),
  },
  {
    id: 'http-late-answer',
    transport: 'http',
    class: 'ids',
    promise: 'An answer after its call timed out is dropped; the next call gets its own.',
    start: start({ mode: 'sse' }),
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      const outcome = await timed(t.conn.callTool('late', { ms: 800, tag: 'stale' }, { timeoutMs: 200 }));
      failedAtOnce(outcome, sent, ['REQUEST_TIMEOUT'], t.name);
      expect((await t.conn.callTool('late', { ms: 1200, tag: 'fresh' })).text).toBe('fresh');
    },
  },
  ...(
    [
      ['json', 'legacy', 'result-not-object'],
      ['sse', 'modern', 'neither'],
      ['json', 'modern', 'error-without-code'],
    ] as const
  ).map(
    ([mode, protocol, shape]): HttpFault => ({
      id: `http-malformed-${shape}-${mode}-${protocol}`,
      transport: 'http',
      class: 'malformed-answer',
      promise: `A ${shape} answer (${mode} body, ${protocol} era) fails its call at once with UPSTREAM_PROTOCOL; the connection stays.`,
      start: start({ mode }, protocol),
      judge: async (t) => void (await oneCallFails(t, 'malformed', { shape }, ['UPSTREAM_PROTOCOL'])),
    }),
  ),
  {
    id: 'http-slow-json-body',
    transport: 'http',
    class: 'slow-body',
    promise: 'A JSON answer written in 20 pieces over a second is delivered whole.',
    start: start({ mode: 'json' }),
    judge: (t) => answered(t, 'slow-json', { ms: 1000 }, 'answered slow-json'),
  },
  {
    id: 'http-endless-json-body',
    transport: 'http',
    class: 'slow-body',
    promise: 'A JSON body that never ends fails its call at its timeout (300 ms), and its socket is closed.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      await t.conn.connect();
      const call = timed(t.conn.callTool('dribble', { body: 'json' }, { timeoutMs: 300 }));
      const open = await t.server().nextOpenResponse();
      failedAtOnce(await call, open.startedAt + 300, ['REQUEST_TIMEOUT'], t.name);
      const closed = await Promise.race([
        open.socketClosed,
        new Promise<undefined>((r) => setTimeout(r, 5000, undefined)),
      ]);
      expect(closed, 'the socket is still open 5 s after the timeout').toBeDefined();
    },
  },
  {
    id: 'http-huge-answer',
    transport: 'http',
    class: 'size',
    promise: 'A 20 MiB JSON answer is delivered whole.',
    start: start({ mode: 'json' }),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('huge', { mb: 20 })).text?.length).toBe(20 * 1024 * 1024);
    },
  },
  {
    id: 'http-log-flood-on-sse',
    transport: 'http',
    class: 'flood',
    promise: 'A flood of 5,000 log notifications on a call’s SSE stream is logged and the answer delivered.',
    start: start({ mode: 'sse' }),
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
    id: 'http-progress-flood-on-sse',
    transport: 'http',
    class: 'flood',
    promise: 'A flood of 5,000 progress notifications reaches the caller and the answer is delivered.',
    start: start({ mode: 'sse' }),
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
];
