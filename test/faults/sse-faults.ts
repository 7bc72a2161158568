import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
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
    judge: (t) => pendingFailsWhen(t, () => t.server.kill()),
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
];
