import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { CallOptions } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { relayRequest } from '../../src/client/relay.js';
import { TASKS_EXTENSION_ID } from '../../src/client/task-runner.js';
import { StdioTransport } from '../../src/client/transports/stdio.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { conformanceUpstreamBin, kitchenSinkBin, rewritingStdioBin } from '../fixtures/paths.js';

/**
 * The direct lane (direct-requests.ts) against the SDK client's own request path, outcome by
 * outcome: two connections to the same 2026-07-28 stdio server, one with the lane and one
 * without, make the same relayed requests and must end the same way — results equal, errors
 * of the same code and message. The server is the kitchen sink behind a relay that breaks
 * chosen answers (rewriting-stdio.ts), since no SDK server sends a broken one.
 */

type Outcome = { ok: unknown } | { error: string; message: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (error) {
    if (isSwitchboardError(error)) return { error: error.code, message: error.message };
    return { error: 'THROWN', message: String(error) };
  }
}

function open(direct: boolean): Promise<Connection> {
  return connect(
    new Connection({
      config: normalizeServerEntry({
        name: 'kitchen',
        command: process.execPath,
        args: [rewritingStdioBin, kitchenSinkBin],
        protocol: 'modern',
      }),
      eraStore: new MemoryEraVerdictStore(),
      directRequests: direct,
    }),
  );
}

async function connect(connection: Connection): Promise<Connection> {
  await connection.connect();
  return connection;
}

const ELICITING = { elicitation: { form: {} } };

/** A text result as the kitchen sink answers it on 2026-07-28. */
function echoed(text: string) {
  return {
    content: [{ type: 'text', text }],
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'kitchen-sink', version: '1.0.0' } },
  };
}

describe('direct requests match the SDK request path', () => {
  let direct: Connection;
  let sdk: Connection;

  beforeAll(async () => {
    [direct, sdk] = await Promise.all([open(true), open(false)]);
  });
  afterAll(async () => {
    await Promise.all([direct?.close(), sdk?.close()]);
  });

  const relay = (
    connection: Connection,
    name: string,
    args: Record<string, unknown> = {},
    relayed: Parameters<typeof relayRequest>[3] = { clientCapabilities: {} },
    options: CallOptions = {},
  ) => outcome(() => relayRequest(connection, 'tools/call', { name, arguments: args }, relayed, options));

  /** The same relay on both connections, in parallel; their outcomes. */
  async function both(
    name: string,
    args?: Record<string, unknown>,
    relayed?: Parameters<typeof relayRequest>[3],
    options?: () => CallOptions,
  ): Promise<[Outcome, Outcome]> {
    return Promise.all([
      relay(direct, name, args, relayed, options?.()),
      relay(sdk, name, args, relayed, options?.()),
    ]);
  }

  it('speaks 2026-07-28 on both connections (the lane is for that era only)', () => {
    expect([direct.era, sdk.era]).toEqual(['modern', 'modern']);
  });

  it.each([
    ['echo', { text: 'hello' }],
    ['add', { a: 2, b: 40 }],
    ['image', {}],
    ['audio', {}],
    ['embedded', {}],
    ['link', {}],
    ['bad_structured', {}],
    ['fail', {}],
    ['throw', {}],
    ['no_such_tool', {}],
    ['echo', { wrong: 1 }],
    ['echo', { text: '@extra-fields' }],
  ])('answers %s %j alike', async (name, args) => {
    const [a, b] = await both(name, args);
    expect(a).toEqual(b);
    // Key for key, in the same order: clients see the answer as JSON.
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('answers a plain call with the result the server sent, resultType taken off', async () => {
    const [a] = await both('echo', { text: 'plain' });
    expect(a).toEqual({ ok: { kind: 'complete', raw: echoed('plain') } });
  });

  it.each(['@no-result-type', '@bad-result-type', '@bad-content', '@wrong-types', '@error-with-data'])(
    'refuses a broken answer (%s) alike',
    async (text) => {
      const [a, b] = await both('echo', { text });
      expect(a).toEqual(b);
      expect('error' in a).toBe(true);
    },
  );

  it('takes the lane on one connection only', () => {
    const lane = (c: Connection) => (c as unknown as { session?: { direct?: unknown } }).session?.direct;
    expect(lane(direct)).toBeDefined();
    expect(lane(sdk)).toBeUndefined();
  });

  // Right id, wrong shape: the SDK alone drops such an answer and the call waits for its
  // timeout (10 s here); both paths must fail it at once, the same way.
  it.each(['@not-an-object', '@error-without-code', '@result-and-error', '@neither', '@extra-member'])(
    'refuses a malformed answer (%s) at once, alike, in a relay and in callTool',
    async (text) => {
      const started = Date.now();
      const [a, b] = await both('echo', { text }, undefined, () => ({ timeoutMs: 10_000 }));
      const call = (c: Connection) => outcome(() => c.callTool('echo', { text }, { timeoutMs: 10_000 }));
      const [c, d] = await Promise.all([call(direct), call(sdk)]);
      expect(Date.now() - started).toBeLessThan(8_000);
      for (const [x, y] of [
        [a, b],
        [c, d],
      ] as const) {
        expect(x).toEqual(y);
        expect(x).toMatchObject({ error: 'UPSTREAM_PROTOCOL' });
        expect((x as { message: string }).message).toContain('"kitchen"');
      }
    },
  );

  it.each(['@duplicate', '@stray-id'])(
    'takes the answer once and ignores the other (%s), alike',
    async (text) => {
      const [a, b] = await both('echo', { text });
      expect(a).toEqual(b);
      expect(a).toEqual({ ok: { kind: 'complete', raw: echoed(text) } });
      // The connection goes on answering the right calls.
      const [c, d] = await both('echo', { text: 'after' });
      expect(c).toEqual(d);
      expect(c).toEqual({ ok: { kind: 'complete', raw: echoed('after') } });
    },
  );

  it('hands input_required back alike, and takes the next round alike', async () => {
    const [a, b] = await both('confirm', {}, { clientCapabilities: ELICITING });
    expect(a).toEqual(b);
    const first = (a as { ok: { kind: string; raw: Record<string, unknown> } }).ok;
    expect(first.kind).toBe('input_required');
    expect(first.raw.resultType).toBe('input_required');
    const next = {
      clientCapabilities: ELICITING,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      ...(typeof first.raw.requestState === 'string' && { requestState: first.raw.requestState }),
    };
    const [c, d] = await both('confirm', {}, next);
    expect(c).toEqual(d);
    expect(c).toEqual({
      ok: { kind: 'complete', raw: echoed(JSON.stringify({ action: 'accept', content: { confirm: true } })) },
    });
  });

  it('relays progress alike', async () => {
    const seen: Record<string, number> = { direct: 0, sdk: 0 };
    const [a, b] = await Promise.all([
      relay(direct, 'progress', { steps: 3, delayMs: 1 }, undefined, { onProgress: () => seen.direct!++ }),
      relay(sdk, 'progress', { steps: 3, delayMs: 1 }, undefined, { onProgress: () => seen.sdk!++ }),
    ]);
    expect(a).toEqual(b);
    expect(seen.direct).toBeGreaterThan(0);
    expect(seen.direct).toBe(seen.sdk);
  });

  it('cancels alike: the caller gets REQUEST_CANCELLED and the server hears of it', async () => {
    const count = async (c: Connection) => Number((await c.callTool('cancelled_count', {})).text);
    const before = await count(direct);
    const cancelled = (c: Connection) => {
      const controller = new AbortController();
      return relay(c, 'slow', { ms: 20_000 }, undefined, {
        signal: controller.signal,
        onProgress: () => controller.abort(),
      });
    };
    const [a, b] = await Promise.all([cancelled(direct), cancelled(sdk)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ error: 'REQUEST_CANCELLED' });
    await expectEventually(async () => (await count(direct)) === before + 1);
  });

  it('times out alike, and tells the server', async () => {
    const count = async (c: Connection) => Number((await c.callTool('cancelled_count', {})).text);
    const before = await count(direct);
    const [a, b] = await both('slow', { ms: 20_000 }, undefined, () => ({ timeoutMs: 200 }));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ error: 'REQUEST_TIMEOUT' });
    await expectEventually(async () => (await count(direct)) === before + 1);
  });

  it.each([
    ['echo', { text: 'hello' }],
    ['add', { a: 2, b: 40 }],
    ['image', {}],
    ['audio', {}],
    ['embedded', {}],
    ['link', {}],
    ['bad_structured', {}],
    ['fail', {}],
    ['throw', {}],
    ['no_such_tool', {}],
    ['echo', { wrong: 1 }],
    ['echo', { text: '@no-result-type' }],
    ['echo', { text: '@bad-content' }],
    ['echo', { text: '@error-with-data' }],
    ['echo', { text: '@extra-fields' }],
    ['echo', { text: '@wrong-types' }],
    // An elicitation the host declines (no handler): the SDK's rounds run on both paths.
    ['confirm', {}],
  ])('calls %s %j through callTool alike', async (name, args) => {
    const call = (c: Connection) => outcome(() => c.callTool(name, args, { timeoutMs: 400 }));
    const [a, b] = await Promise.all([call(direct), call(sdk)]);
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('matches many answers in flight to their requests', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `call ${i}`);
    const answers = await Promise.all(texts.map((text) => relay(direct, 'echo', { text })));
    expect(answers).toEqual(texts.map((text) => ({ ok: { kind: 'complete', raw: echoed(text) } })));
  });
});

describe('direct requests with a server that makes tasks', () => {
  it('hands the created task back as the SDK path does (Tasks extension, 2026-07-28)', async () => {
    const open = (direct: boolean) =>
      connect(
        new Connection({
          config: normalizeServerEntry({
            name: 'conformance',
            command: process.execPath,
            args: [conformanceUpstreamBin, '--transport', 'stdio'],
            protocol: 'modern',
          }),
          eraStore: new MemoryEraVerdictStore(),
          directRequests: direct,
        }),
      );
    const [direct, sdk] = await Promise.all([open(true), open(false)]);
    try {
      const relayed = { clientCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } };
      const created = (c: Connection) =>
        outcome(() =>
          relayRequest(
            c,
            'tools/call',
            { name: 'slow_compute', arguments: { seconds: 0, label: 'lane' } },
            relayed,
          ),
        );
      const [a, b] = await Promise.all([created(direct), created(sdk)]);
      // A task's id and times are the server's own; everything else must match.
      const shape = (o: Outcome) =>
        JSON.parse(JSON.stringify(o).replace(/"(taskId|createdAt|lastUpdatedAt)":"[^"]+"/g, '"$1":"…"'));
      expect(shape(a)).toEqual(shape(b));
      expect(a).toMatchObject({ ok: { kind: 'task', raw: { resultType: 'task' } } });
    } finally {
      await Promise.all([direct.close(), sdk.close()]);
    }
  });
});

describe('direct requests when the server goes away', () => {
  it('fails a call in flight as the SDK path does', async () => {
    const [direct, sdk] = await Promise.all([open(true), open(false)]);
    try {
      // The server process is killed once the call is running (its first progress event).
      const pending = (c: Connection) => {
        let killed = false;
        return relay(c, new AbortController(), () => {
          if (killed) return;
          killed = true;
          const transport = c.activeTransport;
          if (transport instanceof StdioTransport && transport.pid !== null)
            process.kill(transport.pid, 'SIGKILL');
        });
      };
      const [a, b] = await Promise.all([pending(direct), pending(sdk)]);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ error: 'UPSTREAM_DISCONNECTED' });
    } finally {
      await Promise.all([direct.close(), sdk.close()]);
    }
  });

  it('fails a call in flight as the SDK path does when the connection is closed', async () => {
    const [direct, sdk] = await Promise.all([open(true), open(false)]);
    const pending = (c: Connection) => {
      let closed = false;
      return relay(c, new AbortController(), () => {
        if (closed) return;
        closed = true;
        void c.close();
      });
    };
    const [a, b] = await Promise.all([pending(direct), pending(sdk)]);
    expect(a).toEqual(b);
    expect('error' in a).toBe(true);
    expect([direct.state, sdk.state]).toEqual(['closed', 'closed']);
  });

  function relay(c: Connection, controller: AbortController, onProgress: () => void) {
    return outcome(() =>
      relayRequest(
        c,
        'tools/call',
        { name: 'slow', arguments: { ms: 20_000 } },
        { clientCapabilities: {} },
        { signal: controller.signal, onProgress },
      ),
    );
  }
});

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; i < 200 && Date.now() < until; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the condition did not hold in time');
}
