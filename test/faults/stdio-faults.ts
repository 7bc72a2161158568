import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { SwitchboardError } from '../../src/core/errors.js';
import { killSurvivors, running } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';
import { AT_ONCE_MS } from './fault-table.js';
import { exitOf, failedAtOnce, type Outcome, timed } from './judges.js';
import type { StdioFault, StdioTrial } from './stdio-trial.js';

/**
 * The stdio rows of the fault matrix, judged through a Connection. Each server is a mode of
 * `test/fixtures/misbehaving.ts`; every row also promises that nothing it started outlives
 * close() (stdio-trial.ts checks by the tag each process inherits).
 */

/** The pid of the spawned process, from its first log line (known before connect() settles). */
async function spawnedPid(t: StdioTrial): Promise<number> {
  return Number((await t.logged('started process ')).split(' ')[2]);
}

/**
 * Connects, calls `hang`, and makes sure the server read it (an `echo` answered after it).
 * The pending call comes back in a box: an async function returning the promise itself would
 * wait for it.
 */
async function hangPending(t: StdioTrial): Promise<{ pending: Promise<Outcome<unknown>> }> {
  await t.conn.connect();
  const pending = timed(t.conn.callTool('hang', {}));
  await t.conn.callTool('echo', { text: 'after hang' });
  return { pending };
}

function disconnectedEvent(t: StdioTrial): Promise<{ error: SwitchboardError; at: number }> {
  return new Promise((resolve) =>
    t.conn.once('disconnected', (error) => resolve({ error, at: performance.now() })),
  );
}

/** Fails a connect at once, measured from the death of the spawned process. */
async function connectDiesAtOnce(t: StdioTrial): Promise<SwitchboardError> {
  const connecting = timed(t.conn.connect());
  const died = await exitOf(await spawnedPid(t));
  return failedAtOnce(await connecting, died, ['CONNECT_FAILED'], t.name);
}

async function answeredEcho(t: StdioTrial, text = 'through the fault'): Promise<void> {
  await t.conn.connect();
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => t.conn.callTool('echo', { text: `${text} ${i}` })),
  );
  expect(results.map((r) => r.text)).toEqual(Array.from({ length: 5 }, (_, i) => `${text} ${i}`));
}

async function malformed(t: StdioTrial, shape: string): Promise<void> {
  await t.conn.connect();
  const sent = performance.now();
  failedAtOnce(await timed(t.conn.callTool('malformed', { shape })), sent, ['UPSTREAM_PROTOCOL'], t.name);
  expect(t.conn.state).toBe('connected');
  expect((await t.conn.callTool('echo', { text: 'after' })).text).toBe('after');
}

async function pagesEnd(t: StdioTrial): Promise<void> {
  await t.conn.connect();
  const started = performance.now();
  const list = await t.conn.listTools();
  expect(list.truncated).toBe(true);
  expect(list.items.length).toBeGreaterThan(0);
  expect(performance.now() - started).toBeLessThan(10_000);
  expect(t.logs.some((l) => /stopped after \d+ pages/.test(l.text))).toBe(true);
  expect((await t.conn.callTool('echo', { text: 'after paging' })).text).toBe('after paging');
}

const mode = (m: string, extra: Partial<StdioFault['start']> = {}) => ({ mode: m, ...extra });

export const STDIO_FAULTS: readonly StdioFault[] = [
  {
    id: 'stdio-exit-before-initialize',
    transport: 'stdio',
    class: 'crash-before-initialize',
    promise: 'A server that exits before the handshake fails connect() at once, quoting its stderr.',
    start: mode('exit-at-start'),
    judge: async (t) => {
      const error = await connectDiesAtOnce(t);
      expect(error.message).toContain('missing API key');
    },
  },
  {
    id: 'stdio-exit-during-initialize',
    transport: 'stdio',
    class: 'crash-during-initialize',
    promise: 'A server that exits when initialize arrives fails connect() at once.',
    start: mode('exit-on-initialize'),
    judge: async (t) => void (await connectDiesAtOnce(t)),
  },
  {
    id: 'stdio-exit-on-discover-probe',
    transport: 'stdio',
    class: 'crash-during-initialize',
    promise: 'A 2025 server that exits on the server/discover probe is still connected, in the 2025 era.',
    start: mode('exit-on-discover', { protocol: 'auto' }),
    judge: async (t) => {
      await t.conn.connect();
      expect(t.conn.era).toBe('legacy');
      expect((await t.conn.callTool('echo', { text: 'old' })).text).toBe('old');
    },
  },
  {
    id: 'stdio-exit-after-initialize',
    transport: 'stdio',
    class: 'crash-after-initialize',
    promise:
      'A server that exits right after the handshake is seen gone at once: connect() fails or the connection disconnects, and calls fail UPSTREAM_DISCONNECTED.',
    start: mode('exit-after-initialized'),
    judge: async (t) => {
      const connecting = timed(t.conn.connect());
      const died = await exitOf(await spawnedPid(t));
      const connected = await connecting;
      if (connected.error) {
        failedAtOnce(connected, died, ['CONNECT_FAILED', 'UPSTREAM_DISCONNECTED'], t.name);
        return;
      }
      await eventually(
        () => t.conn.state,
        (s) => s === 'disconnected',
        { what: 'saw the connection disconnected', timeoutMs: AT_ONCE_MS },
      );
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
    id: 'stdio-exit-mid-call',
    transport: 'stdio',
    class: 'crash-mid-call',
    promise:
      'A server that exits during a call fails it (and every pending call) at once with UPSTREAM_DISCONNECTED.',
    start: mode('crash-mid-call'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      const calls = [timed(t.conn.callTool('crash', {})), timed(t.conn.callTool('crash', {}))];
      const died = await exitOf(pid);
      for (const call of calls) failedAtOnce(await call, died, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'stdio-sigkill-mid-call',
    transport: 'stdio',
    class: 'crash-mid-call',
    promise:
      'A server SIGKILLed with a call pending fails it at once with UPSTREAM_DISCONNECTED; the log names the signal.',
    start: mode('hang'),
    judge: async (t) => {
      const { pending } = await hangPending(t);
      const died = t.kill();
      failedAtOnce(await pending, died, ['UPSTREAM_DISCONNECTED'], t.name);
      expect(t.logs.some((l) => l.text.includes('signal SIGKILL'))).toBe(true);
    },
  },
  {
    id: 'stdio-killed-between-calls',
    transport: 'stdio',
    class: 'crash-between-calls',
    promise:
      'A server killed while idle is seen gone at once (disconnected event), and the next call fails UPSTREAM_DISCONNECTED without waiting.',
    start: mode('hang'),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('echo', { text: 'before' })).text).toBe('before');
      const disconnected = disconnectedEvent(t);
      const died = t.kill();
      const event = await disconnected;
      expect(event.at - died).toBeLessThan(AT_ONCE_MS);
      expect(event.error.code).toBe('UPSTREAM_DISCONNECTED');
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
    id: 'stdio-exit-while-paging',
    transport: 'stdio',
    class: 'crash-while-paging',
    promise:
      'A server that exits while its tool list is paged fails the list at once with UPSTREAM_DISCONNECTED.',
    start: mode('exit-on-page-2'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      const listing = timed(t.conn.listTools());
      const died = await exitOf(pid);
      failedAtOnce(await listing, died, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'stdio-held-pipe-killed',
    transport: 'stdio',
    class: 'held-pipe',
    promise:
      'A server killed while a helper it started holds its stdout fails pending calls at once, and the helper is ended without close().',
    start: mode('pipe-holder'),
    judge: async (t) => {
      const { pending } = await hangPending(t);
      const holder = Number((await t.logged('holder-pid ')).split(' ')[1]);
      const died = t.kill();
      const error = failedAtOnce(await pending, died, ['UPSTREAM_DISCONNECTED'], t.name);
      expect(error.details.reason).toBe('exited-stdout-held');
      await eventually(
        () => running(holder),
        (alive) => !alive,
        { what: 'saw the holder end', timeoutMs: 10_000 },
      );
    },
  },
  {
    id: 'stdio-held-pipe-setsid-exits',
    transport: 'stdio',
    class: 'held-pipe',
    promise:
      'A server that exits mid-call while a helper in a session of its own holds its stdout fails the call at once.',
    start: mode('pipe-holder-setsid'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      const call = timed(t.conn.callTool('crash', {}));
      const died = await exitOf(pid);
      failedAtOnce(await call, died, ['UPSTREAM_DISCONNECTED'], t.name);
    },
  },
  {
    id: 'stdio-held-pipe-last-words',
    transport: 'stdio',
    class: 'held-pipe',
    promise:
      'Everything a server wrote before it exited (2000 notifications and an answer) is delivered, then the pending calls fail.',
    start: mode('pipe-holder'),
    judge: async (t) => {
      const { pending } = await hangPending(t);
      expect((await t.conn.callTool('farewell', { count: 2000 })).text).toBe('farewell after 2000');
      const error = (await pending).error as SwitchboardError;
      expect(error.code).toBe('UPSTREAM_DISCONNECTED');
      await eventually(
        () => t.logs.filter((l) => l.source === 'server' && l.text.startsWith('farewell ')).length,
        (n) => n === 2000,
        { what: 'saw all 2000 notifications', timeoutMs: 5000 },
      );
    },
  },
  {
    id: 'stdio-shell-backgrounds-server',
    transport: 'stdio',
    class: 'held-pipe',
    promise:
      "A wrapper (`sh -c 'server &'`) that backgrounds the server and exits fails connect() at once; the server it left is ended.",
    start: mode('hang', { shell: (server) => `exec 3<&0; ${server} <&3 3<&- &` }),
    judge: async (t) => {
      const connecting = timed(t.conn.connect());
      const died = await exitOf(await spawnedPid(t));
      failedAtOnce(await connecting, died, ['CONNECT_FAILED'], t.name);
    },
  },
  {
    id: 'stdio-shell-wrapper-killed',
    transport: 'stdio',
    class: 'held-pipe',
    promise:
      "A wrapper (`sh -c 'server & wait'`) killed while the server it started holds the pipes fails pending calls at once; the server is ended.",
    // fd 3 carries stdin past the shell, which gives background jobs /dev/null.
    start: mode('hang', { shell: (server) => `exec 3<&0; ${server} <&3 3<&- & exec 3<&-; wait` }),
    judge: async (t) => {
      const { pending } = await hangPending(t);
      const died = t.kill();
      failedAtOnce(await pending, died, ['UPSTREAM_DISCONNECTED'], t.name);
      await eventually(t.survivors, (left) => left.length === 0, {
        what: 'saw the backgrounded server end without close()',
        timeoutMs: 10_000,
      });
    },
  },
  {
    id: 'stdio-daemons-on-close',
    transport: 'stdio',
    class: 'daemon',
    promise:
      'close() ends the daemons a server left behind: setsid, double fork, nohup and a job of its own group.',
    start: mode('daemons'),
    judge: async (t) => {
      await t.conn.connect();
      await eventually(
        () => t.logs.filter((l) => l.text.startsWith('daemon-pid ')).length,
        (n) => n === 4,
        { what: 'saw four daemons start', timeoutMs: 10_000 },
      );
      expect(t.survivors().length).toBeGreaterThanOrEqual(5);
      // The harness closes the connection and checks no tagged process survives.
    },
  },
  {
    id: 'stdio-daemon-env-cleared',
    transport: 'stdio',
    class: 'daemon',
    promise:
      "close() ends a daemon that left the session, lost its parent and cleared its environment (in the server's cgroup).",
    start: mode('env-cleared-daemon'),
    judge: async (t) => {
      await t.conn.connect();
      const line = await t.logged('daemon-pid env-cleared ');
      const pid = Number(line.split(' ')[2]);
      try {
        await t.conn.close();
        await exitOf(pid, 10_000);
      } finally {
        killSurvivors([pid]);
      }
    },
  },
  {
    id: 'stdio-daemons-server-killed',
    transport: 'stdio',
    class: 'daemon',
    promise: 'A server that is killed takes its daemons with it, without anyone calling close().',
    start: mode('daemons'),
    judge: async (t) => {
      await t.conn.connect();
      await eventually(
        () => t.logs.filter((l) => l.text.startsWith('daemon-pid ')).length,
        (n) => n === 4,
        { what: 'saw four daemons start', timeoutMs: 10_000 },
      );
      const disconnected = disconnectedEvent(t);
      t.kill();
      await disconnected;
      await eventually(t.survivors, (left) => left.length === 0, {
        what: 'saw the daemons end without close()',
        timeoutMs: 10_000,
      });
    },
  },
  {
    id: 'stdio-ignores-sigterm',
    transport: 'stdio',
    class: 'ignored-sigterm',
    promise:
      'close() of a server that ignores SIGTERM and outlives stdin returns within 5 s, the server killed.',
    start: mode('ignore-sigterm'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      const started = performance.now();
      await t.conn.close();
      expect(performance.now() - started).toBeLessThan(5000);
      expect(running(pid)).toBe(false);
    },
  },
  {
    id: 'stdio-ignores-sigterm-call-pending',
    transport: 'stdio',
    class: 'ignored-sigterm',
    promise:
      'Closing while a call is pending on a server that ignores SIGTERM fails the call at once, not after the kill.',
    start: mode('ignore-sigterm'),
    judge: async (t) => {
      await t.conn.connect();
      const pending = timed(t.conn.callTool('hang', {}));
      await t.conn.callTool('echo', { text: 'read' });
      const closing = performance.now();
      const closed = t.conn.close();
      failedAtOnce(
        await pending,
        closing,
        ['UPSTREAM_DISCONNECTED', 'UPSTREAM_ERROR', 'NOT_CONNECTED'],
        t.name,
      );
      await closed;
    },
  },
  {
    id: 'stdio-garbage-lines',
    transport: 'stdio',
    class: 'framing',
    promise: 'Lines on stdout that are not JSON are logged and skipped; every call is answered.',
    start: mode('garbage-stdout'),
    judge: async (t) => {
      await answeredEcho(t);
      expect(t.logs.some((l) => l.source === 'stdout' && l.text.includes('garbage'))).toBe(true);
    },
  },
  {
    id: 'stdio-split-frames',
    transport: 'stdio',
    class: 'framing',
    promise: 'A message split across several writes is put together and answered.',
    start: mode('split-frames'),
    judge: (t) => answeredEcho(t),
  },
  {
    id: 'stdio-coalesced-frames',
    transport: 'stdio',
    class: 'framing',
    promise: 'Several messages in one write are each delivered: answers and notifications alike.',
    start: mode('coalesced-frames'),
    judge: async (t) => {
      await answeredEcho(t);
      expect(t.logs.filter((l) => l.source === 'server').length).toBeGreaterThanOrEqual(5);
    },
  },
  {
    id: 'stdio-crlf-frames',
    transport: 'stdio',
    class: 'framing',
    promise: 'Lines ending in CR LF are read like lines ending in LF.',
    start: mode('crlf-frames'),
    judge: (t) => answeredEcho(t),
  },
  {
    id: 'stdio-bom-first-write',
    transport: 'stdio',
    class: 'framing',
    promise: 'A UTF-8 byte order mark before the first message does not lose the handshake.',
    start: mode('bom-frames', { connectS: 10 }),
    judge: (t) => answeredEcho(t),
  },
  {
    id: 'stdio-huge-noise-line',
    transport: 'stdio',
    class: 'size',
    promise: 'A 24 MiB line of noise is skipped without stalling; the handshake and calls go on.',
    start: mode('huge-noise-line'),
    judge: (t) => answeredEcho(t),
  },
  {
    id: 'stdio-huge-answer',
    transport: 'stdio',
    class: 'size',
    promise: 'A 20 MiB answer is delivered whole.',
    start: mode('huge-message'),
    judge: async (t) => {
      await t.conn.connect();
      const result = await t.conn.callTool('huge', { mb: 20 });
      expect(result.text?.length).toBe(20 * 1024 * 1024);
    },
  },
  {
    id: 'stdio-slow-frames',
    transport: 'stdio',
    class: 'slow-body',
    promise: 'A message dribbled in 64-byte writes is delivered whole.',
    start: mode('slow-frames'),
    judge: (t) => answeredEcho(t),
  },
  {
    id: 'stdio-stray-id',
    transport: 'stdio',
    class: 'ids',
    promise: 'An answer to an id nobody asked for is ignored; the right answer is delivered.',
    start: mode('malformed-answers'),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('malformed', { shape: 'unknown-id-first' })).text).toBe('valid');
      expect(t.conn.state).toBe('connected');
    },
  },
  {
    id: 'stdio-duplicate-id',
    transport: 'stdio',
    class: 'ids',
    promise: 'An answer sent twice answers its call once; the second answers nothing else.',
    start: mode('malformed-answers'),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('malformed', { shape: 'duplicate' })).text).toBe('first');
      expect((await t.conn.callTool('echo', { text: 'next' })).text).toBe('next');
    },
  },
  {
    id: 'stdio-late-answer',
    transport: 'stdio',
    class: 'ids',
    promise: 'An answer that comes after its call timed out is dropped; it never answers a later call.',
    start: mode('malformed-answers'),
    judge: async (t) => {
      await t.conn.connect();
      const sent = performance.now();
      const timedOut = await timed(t.conn.callTool('late', { ms: 800, tag: 'stale' }, { timeoutMs: 200 }));
      failedAtOnce(timedOut, sent, ['REQUEST_TIMEOUT'], t.name);
      // Pending while the stale answer arrives.
      expect((await t.conn.callTool('late', { ms: 1200, tag: 'fresh' })).text).toBe('fresh');
    },
  },
  {
    id: 'stdio-log-flood',
    transport: 'stdio',
    class: 'flood',
    promise: 'A flood of 20,000 log notifications before an answer is logged and the answer delivered.',
    start: mode('malformed-answers'),
    judge: async (t) => {
      await t.conn.connect();
      expect((await t.conn.callTool('flood', { count: 20_000, kind: 'log' })).text).toBe('flooded 20000');
      expect(t.logs.filter((l) => l.source === 'server').length).toBe(20_000);
      expect(t.conn.state).toBe('connected');
    },
  },
  {
    id: 'stdio-progress-flood',
    transport: 'stdio',
    class: 'flood',
    promise: 'A flood of 20,000 progress notifications reaches the caller and the answer is delivered.',
    start: mode('malformed-answers'),
    judge: async (t) => {
      await t.conn.connect();
      let seen = 0;
      const result = await t.conn.callTool(
        'flood',
        { count: 20_000, kind: 'progress' },
        { onProgress: () => void seen++ },
      );
      expect(result.text).toBe('flooded 20000');
      expect(seen).toBe(20_000);
    },
  },
  {
    id: 'stdio-hanging-initialize',
    transport: 'stdio',
    class: 'hanging-initialize',
    promise:
      'A server that never answers initialize fails connect() with CONNECT_TIMEOUT at its connect timeout (1 s).',
    start: mode('hang-init', { connectS: 1 }),
    judge: async (t) => {
      const connecting = timed(t.conn.connect());
      await t.logged('started process ');
      const spawned = t.arrivedAt(t.logs.find((l) => l.text.startsWith('started process '))!);
      failedAtOnce(await connecting, spawned + 1000, ['CONNECT_TIMEOUT'], t.name);
    },
  },
  {
    id: 'stdio-hanging-initialize-ignores-sigterm',
    transport: 'stdio',
    class: 'hanging-initialize',
    promise:
      'A server that never answers initialize and ignores SIGTERM fails connect() at its connect timeout, not after it is killed.',
    start: mode('hang-init-sticky', { connectS: 1 }),
    judge: async (t) => {
      const connecting = timed(t.conn.connect());
      await t.logged('started process ');
      const spawned = t.arrivedAt(t.logs.find((l) => l.text.startsWith('started process '))!);
      failedAtOnce(await connecting, spawned + 1000, ['CONNECT_TIMEOUT'], t.name);
    },
  },
  ...(['result-not-object', 'error-without-code', 'neither', 'bad-result'] as const).map(
    (shape): StdioFault => ({
      id: `stdio-malformed-${shape}`,
      transport: 'stdio',
      class: 'malformed-answer',
      promise: `An answer with the right id and the wrong shape (${shape}) fails its call at once with UPSTREAM_PROTOCOL; the connection stays.`,
      start: mode('malformed-answers'),
      judge: (t) => malformed(t, shape),
    }),
  ),
  {
    id: 'stdio-stdout-closed',
    transport: 'stdio',
    class: 'stdout-closed',
    promise:
      'A server that closes stdout and lives on fails pending calls at once (reason stdout-closed) and is stopped.',
    start: mode('close-stdout'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      const hang = timed(t.conn.callTool('hang', {}));
      const sent = performance.now();
      const closing = timed(t.conn.callTool('close-stdout', {}));
      for (const outcome of await Promise.all([hang, closing])) {
        const error = failedAtOnce(outcome, sent, ['UPSTREAM_DISCONNECTED'], t.name);
        expect(error.details.reason).toBe('stdout-closed');
      }
      await exitOf(pid, 10_000);
    },
  },
  {
    id: 'stdio-stdin-closed',
    transport: 'stdio',
    class: 'stdout-closed',
    promise:
      'A server that closes stdin and lives on fails the next call at once (reason stdin-closed) and is stopped.',
    start: mode('close-stdin'),
    judge: async (t) => {
      await t.conn.connect();
      const pid = t.pid();
      await t.conn.callTool('close-stdin', {});
      const sent = performance.now();
      const error = failedAtOnce(
        await timed(t.conn.callTool('hang', {})),
        sent,
        ['UPSTREAM_DISCONNECTED'],
        t.name,
      );
      expect(error.details.reason).toBe('stdin-closed');
      expect(error.message).toContain('closed its stdin');
      await exitOf(pid, 10_000);
    },
  },
  ...(
    ['pages-same-cursor', 'pages-same-cursor-new-items', 'pages-cursor-cycle', 'pages-endless'] as const
  ).map(
    (m): StdioFault => ({
      id: `stdio-${m}`,
      transport: 'stdio',
      class: 'pagination-loop',
      promise: `A tool list that pages forever (${m.slice(6)}) ends, marked truncated, and the connection goes on.`,
      start: mode(m, { listPageCap: 10 }),
      judge: pagesEnd,
    }),
  ),
];
