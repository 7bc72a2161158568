import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../src/core/server-config.js';
import { type MisbehavingHttpHandle, startMisbehavingHttp } from '../fixtures/misbehaving-http.js';
import { misbehavingBin } from '../fixtures/paths.js';
import { MALFORMED_SHAPES, type MalformedShape } from '../fixtures/raw-mcp.js';

/**
 * Answers with the right id and the wrong shape, over stdio and Streamable HTTP (JSON and
 * SSE bodies, both eras): the call fails at once with UPSTREAM_PROTOCOL naming the server and
 * what was wrong — it does not wait for its timeout (10 s here, so a wait shows as
 * REQUEST_TIMEOUT), nor end as a lost stream. Duplicate, stray and late answers answer nothing
 * else. (The direct lane's cases are in direct-requests.test.ts.)
 */
const TIMEOUT_MS = 10_000;

interface Target {
  readonly label: string;
  readonly entry: () => RawServerEntry;
}

let json: MisbehavingHttpHandle;
let sse: MisbehavingHttpHandle;

beforeAll(async () => {
  [json, sse] = await Promise.all([
    startMisbehavingHttp({ mode: 'json' }),
    startMisbehavingHttp({ mode: 'sse' }),
  ]);
});
afterAll(async () => {
  await Promise.all([json?.close(), sse?.close()]);
});

const TARGETS: readonly Target[] = [
  {
    label: 'stdio, 2025-11-25',
    entry: () => ({
      name: 'raw',
      command: process.execPath,
      args: [misbehavingBin, '--mode', 'malformed-answers'],
      protocol: 'legacy',
    }),
  },
  { label: 'HTTP JSON, 2025-11-25', entry: () => ({ name: 'raw', url: json.url, protocol: 'legacy' }) },
  { label: 'HTTP JSON, 2026-07-28', entry: () => ({ name: 'raw', url: json.url, protocol: 'modern' }) },
  { label: 'HTTP SSE, 2025-11-25', entry: () => ({ name: 'raw', url: sse.url, protocol: 'legacy' }) },
  { label: 'HTTP SSE, 2026-07-28', entry: () => ({ name: 'raw', url: sse.url, protocol: 'modern' }) },
];

describe.each(TARGETS)('malformed answers ($label)', (target) => {
  let conn: Connection;
  beforeAll(async () => {
    conn = new Connection({
      config: normalizeServerEntry(target.entry()),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
  });

  const shapes = Object.keys(MALFORMED_SHAPES) as MalformedShape[];

  it.each(shapes)('fails a call answered %s at once, saying what was wrong', async (shape) => {
    const error = await conn.callTool('malformed', { shape }, { timeoutMs: TIMEOUT_MS }).catch((e) => e);
    expect(isSwitchboardError(error, 'UPSTREAM_PROTOCOL')).toBe(true);
    expect(error.message).toContain('Server "raw"');
    expect(error.message).toContain('tools/call');
    if (shape !== 'bad-result') expect(error.message).toContain('malformed answer');
    expect(conn.state).toBe('connected');
  });

  it.each(['duplicate', 'unknown-id-first'])(
    'takes the one right answer when the server also sends %s',
    async (shape) => {
      const result = await conn.callTool('malformed', { shape }, { timeoutMs: TIMEOUT_MS });
      expect(result.text).toBe(shape === 'duplicate' ? 'first' : 'valid');
      expect((await conn.callTool('echo', { text: 'next' })).text).toBe('next');
    },
  );

  it('lets a late answer to a timed-out call answer no other call', async () => {
    const timedOut = await conn
      .callTool('late', { ms: 400, tag: 'first' }, { timeoutMs: 100 })
      .catch((e) => e);
    expect(isSwitchboardError(timedOut, 'REQUEST_TIMEOUT')).toBe(true);
    // The first call's answer comes while this one waits for its own.
    const second = await conn.callTool('late', { ms: 800, tag: 'second' }, { timeoutMs: TIMEOUT_MS });
    expect(second.text).toBe('second');
    expect(conn.state).toBe('connected');
  });
});
