import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import {
  type MisbehavingHttpHandle,
  type MisbehavingHttpMode,
  startMisbehavingHttp,
} from '../../fixtures/misbehaving-http.js';

/**
 * Streamable HTTP against servers that misbehave on the wire (misbehaving-http.ts): bodies
 * that dribble in forever, and a server that dies with calls pending. Judged from what the
 * server witnessed (its socket's `close`) and from the moment of the kill, with margins for a
 * loaded machine.
 */
const servers: MisbehavingHttpHandle[] = [];
const connections: Connection[] = [];

afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(
  mode: MisbehavingHttpMode,
  protocol: 'legacy' | 'modern',
): Promise<{ server: MisbehavingHttpHandle; conn: Connection }> {
  const server = await startMisbehavingHttp({ mode });
  servers.push(server);
  const conn = new Connection({
    config: normalizeServerEntry({ name: 'faulty', url: server.url, protocol }),
    eraStore: new MemoryEraVerdictStore(),
  });
  connections.push(conn);
  await conn.connect();
  return { server, conn };
}

/** The time `promise` resolved with, or undefined when it did not within `ms`. */
async function within(promise: Promise<number>, ms: number): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(['legacy', 'modern'] as const)('a response body that never ends (%s era)', (protocol) => {
  describe.each(['json', 'sse', 'error'] as const)('%s body', (body) => {
    it('is cut when its call times out: the server sees the socket close', async () => {
      const { server, conn } = await setUp('json', protocol);
      const call = conn.callTool('dribble', { body }, { timeoutMs: 300 }).catch((e) => e);
      const open = await server.nextOpenResponse();
      const error = await call;
      const failedAt = performance.now();
      expect(isSwitchboardError(error, 'REQUEST_TIMEOUT')).toBe(true);
      const closedAt = await within(open.socketClosed, 5000);
      expect(closedAt, 'the socket is still open 5 s after the timeout').toBeDefined();
      expect(closedAt! - failedAt).toBeLessThan(2000);
    });

    it('is cut when the caller cancels the call', async () => {
      const { server, conn } = await setUp('json', protocol);
      const controller = new AbortController();
      const call = conn.callTool('dribble', { body }, { signal: controller.signal }).catch((e) => e);
      const open = await server.nextOpenResponse();
      controller.abort();
      const cancelledAt = performance.now();
      expect(isSwitchboardError(await call, 'REQUEST_CANCELLED')).toBe(true);
      const closedAt = await within(open.socketClosed, 5000);
      expect(closedAt, 'the socket is still open 5 s after the cancel').toBeDefined();
      expect(closedAt! - cancelledAt).toBeLessThan(2000);
    });

    it('is cut when the connection closes, before close() is done', async () => {
      const { server, conn } = await setUp('json', protocol);
      const call = conn.callTool('dribble', { body }).catch((e) => e);
      const open = await server.nextOpenResponse();
      await conn.close();
      const closedAt = performance.now();
      expect(isSwitchboardError(await call, 'UPSTREAM_DISCONNECTED')).toBe(true);
      // The client destroyed the socket inside close(); the server hears of it a moment later.
      const seenAt = await within(open.socketClosed, 5000);
      expect(seenAt, 'the socket is still open 5 s after close()').toBeDefined();
      expect(seenAt! - closedAt).toBeLessThan(1000);
    });
  });
});

describe('the requests of close()', () => {
  it.each([
    ['the DELETE that ends the session', 'dribble-delete'],
    ['the GET stream', 'dribble-get'],
  ] as const)('cut %s, whose body never ends, before close() is done', async (_, mode) => {
    const server = await startMisbehavingHttp({ mode });
    servers.push(server);
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'faulty', url: server.url, protocol: 'legacy' }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
    const open = server.nextOpenResponse();
    if (mode === 'dribble-get') await open;
    await conn.close();
    const closedAt = performance.now();
    const seenAt = await within((await open).socketClosed, 5000);
    expect(seenAt, 'the socket is still open 5 s after close()').toBeDefined();
    expect(seenAt! - closedAt).toBeLessThan(1000);
  });
});

/** Figures of the death trials: ms from the kill to the last failure, and from the first failure to the last. */
const deaths: { trial: string; fromKill: number; spread: number }[] = [];

afterAll(() => {
  if (deaths.length === 0) return;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const fromKill = deaths.map((d) => d.fromKill);
  const spread = deaths.map((d) => d.spread);
  console.info(
    `HTTP server death, 20 pending calls, ${deaths.length} trials: kill → last failure median ${median(fromKill).toFixed(1)} ms, ` +
      `max ${Math.max(...fromKill).toFixed(1)} ms; first → last failure median ${median(spread).toFixed(1)} ms, ` +
      `max ${Math.max(...spread).toFixed(1)} ms`,
  );
});

describe('a server that dies with 20 calls pending on SSE streams', () => {
  const CALLS = 20;
  // The sockets die one by one, 40 ms apart (≈ 0.8 s in all), as a dying server's reach a
  // loaded client: the first sign must fail every call, not each its own.
  const STAGGER_MS = 40;

  it.each([
    { era: 'legacy', priming: false, how: 'reset', mode: 'json' },
    { era: 'legacy', priming: true, how: 'end', mode: 'json' },
    { era: 'modern', priming: false, how: 'end', mode: 'json' },
    { era: 'modern', priming: true, how: 'reset', mode: 'json' },
    // The GET stream is the first to go: a failed GET stream is a sign too.
    { era: 'legacy', priming: false, how: 'reset', mode: 'dribble-get' },
    { era: 'legacy', priming: true, how: 'end', mode: 'dribble-get' },
  ] as const)('fails them all at the first sign ($era era, priming $priming, $how, $mode)', async (trial) => {
    const { server, conn } = await setUp(trial.mode, trial.era);
    if (trial.mode === 'dribble-get') await server.nextOpenResponse();
    const failures: number[] = [];
    const calls = Array.from({ length: CALLS }, () =>
      conn.callTool('hold', { priming: trial.priming }, { timeoutMs: 30_000 }).catch((error: unknown) => {
        failures.push(performance.now());
        return error;
      }),
    );
    for (let i = 0; i < CALLS; i++) await server.nextOpenResponse();
    const disconnected = new Promise<void>((resolve) => conn.once('disconnected', () => resolve()));
    const killedAt = server.kill(trial.how, { staggerMs: STAGGER_MS });
    const errors = await Promise.all(calls);
    for (const error of errors) expect(isSwitchboardError(error, 'UPSTREAM_DISCONNECTED')).toBe(true);
    const first = Math.min(...failures);
    const last = Math.max(...failures);
    deaths.push({ trial: JSON.stringify(trial), fromKill: last - killedAt, spread: last - first });
    expect(last - first).toBeLessThan(100);
    expect(last - killedAt).toBeLessThan(1000);
    await disconnected;
    expect(conn.state).toBe('disconnected');
  });

  it('lets the others go on when one request fails with an HTTP error or a lost stream', async () => {
    const { server, conn } = await setUp('json', 'legacy');
    let settled = 0;
    const held = Array.from({ length: 5 }, () =>
      conn.callTool('hold', {}, { timeoutMs: 30_000 }).finally(() => {
        settled++;
      }),
    );
    for (let i = 0; i < 5; i++) await server.nextOpenResponse();
    const http = await conn.callTool('http-error', { status: 500 }).catch((e) => e);
    expect(isSwitchboardError(http, 'UPSTREAM_HTTP')).toBe(true);
    expect(http.details.status).toBe(500);
    const lost = await conn.callTool('end-stream', {}).catch((e) => e);
    expect(isSwitchboardError(lost, 'UPSTREAM_DISCONNECTED')).toBe(true);
    expect((await conn.callTool('echo', { text: 'still here' })).text).toBe('still here');
    expect(conn.state).toBe('connected');
    expect(settled).toBe(0);
    await conn.close();
    await Promise.allSettled(held);
  });
});
