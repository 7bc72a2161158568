import { isLegacyRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHead } from '../../../src/gateway/http/context.js';
import {
  type FastSessionCall,
  fastSessionCall,
  JSON_ANSWER_MAX_CHARS,
  plainSessionCall,
  STREAM_AFTER_MS,
} from '../../../src/gateway/mcp/fast-session-call.js';
import type { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';
import type { GatewayPrincipal } from '../../../src/gateway/mcp/served-catalog.js';
import type { Host } from '../../../src/host/host.js';
import type { KitchenHttpHandle } from '../../fixtures/kitchen-sink.js';
import { eventually } from '../../helpers/wait.js';
import { SseReader } from '../sse-events.js';
import { endpointUnderTest, type KitchenHost, kitchenHost, TEST_LIMITS } from './endpoint-under-test.js';
import {
  type Answer,
  mcpRequest,
  openSession,
  post,
  readAnswer,
  resume,
  type Session,
  sessionHeaders,
  toolCallBody,
} from './session-client.js';

/**
 * The 2025 session fast path against the SDK's transport, on the same host and upstream (the
 * kitchen sink over 2026-07-28 HTTP): the same requests on a session of an endpoint that takes
 * the fast path and on one of an endpoint that never does must get the same messages (the fast
 * path answers a quick, quiet call as JSON, the SDK as SSE), and a spy on the fast path says
 * which calls it answered itself ('fast'), which it settled for the SDK to answer ('settled')
 * and which it declined ('declined').
 */
const EXPOSED = ['kitchen/*'];
const RETRY_MS = 1_000;
/** A priming event, then one message: what the SDK writes for a quick call from 2025-11-25 on. */
const PRIMED_ANSWER =
  /^id: ([^\n]+)\nretry: 1000\ndata: \n\nevent: message\nid: ([^\n]+)\ndata: \{[^\n]*\}\n\n$/;
/** One message without a priming event: what the SDK writes for a 2025-06-18 client. */
const UNPRIMED_ANSWER = /^event: message\nid: ([^\n]+)\ndata: \{[^\n]*\}\n\n$/;

let fixture: KitchenHost | undefined;
let kitchen: KitchenHttpHandle;
let host: Host;
const endpoints: McpEndpoint[] = [];
/** What the fast path did with each call offered to it, in order. */
const outcomes: string[] = [];
/** The calls whose answer the SDK gave, settled by the fast path (before or after it answered). */
const settledIds = new Set<string | number>();
/** Ids of the offered calls that are over (the scope's `finished` was called). */
const finished = new Set<string | number>();
/**
 * Ids of the calls the fast path answered only after STREAM_AFTER_MS (witnessed by the spy):
 * on a loaded machine a quick call can run that long, and is then rightly answered as a
 * stream; the cases judge the form by this, not by an assumption about the machine's speed.
 */
const late = new Set<string | number>();

/** An endpoint over `host`, with the session fast path (spied on) or without it. */
function endpoint(options: { fast: boolean }): McpEndpoint {
  const real = fastSessionCall({
    host,
    naming: 'passthrough-unique',
    exposeTools: EXPOSED,
    consent: 'off',
    limits: TEST_LIMITS,
    management: false,
  });
  const spy: FastSessionCall = async (call, scope) => {
    let settled = false;
    const started = performance.now();
    const answer = await real(call, {
      ...scope,
      fullPath: (how) => {
        settled = true;
        settledIds.add(call.id);
        return scope.fullPath(how);
      },
      finished: () => {
        finished.add(call.id);
        scope.finished();
      },
    });
    if (performance.now() - started >= STREAM_AFTER_MS) late.add(call.id);
    outcomes.push(answer === undefined ? 'declined' : settled ? 'settled' : 'fast');
    return answer;
  };
  const made = endpointUnderTest(host, {
    exposed: EXPOSED,
    retryMs: RETRY_MS,
    ...(options.fast && { fastSessionCall: spy }),
  });
  endpoints.push(made);
  return made;
}

const tester: GatewayPrincipal = { id: 'tester', allows: (_server, tool) => tool !== 'sample' };

let fast: McpEndpoint;
let full: McpEndpoint;
/** A 2025-11-25 session on each endpoint. */
let fastSession: Session;
let fullSession: Session;
let nextId = 100;

/** The same request on a session of each endpoint: the fast path's answer, what the spy saw, the SDK's. */
async function both(
  body: (id: number) => unknown,
  on: { fast: Session; full: Session } = { fast: fastSession, full: fullSession },
  headers: Record<string, string> = {},
): Promise<{ viaFast: Answer; seen: string[]; viaFull: Answer; late: boolean }> {
  const id = nextId++;
  const before = outcomes.length;
  const viaFast = await readAnswer(await post(on.fast, body(id), headers));
  const seen = outcomes.slice(before);
  const viaFull = await readAnswer(await post(on.full, body(id), headers));
  expect(outcomes.slice(before)).toEqual(seen);
  return { viaFast, seen, viaFull, late: late.has(id) };
}

/** The count of `tools/call` requests the kitchen has received. */
const upstreamCalls = () => kitchen.stats.requests['tools/call'] ?? 0;

/** Waits until the fast path says the call `id` is over. */
const callEnds = (id: number) => eventually(() => finished.has(id), Boolean, { what: `saw call ${id} end` });

/** Waits until the kitchen counts more cancelled `slow` calls than `before`. */
const upstreamCancels = (before: number) =>
  eventually(
    () => kitchen.stats.cancelled,
    (n) => n > before,
    { what: 'saw the upstream cancel the call' },
  );

beforeAll(async () => {
  fixture = await kitchenHost();
  ({ host, kitchen } = fixture);
  fast = endpoint({ fast: true });
  full = endpoint({ fast: false });
  fastSession = await openSession(fast, tester, { version: '2025-11-25' });
  fullSession = await openSession(full, tester, { version: '2025-11-25' });
  // A first call of each: a cold one can run past STREAM_AFTER_MS on a loaded machine and be
  // answered as a stream, which the cases below would take for a difference of form.
  for (const session of [fastSession, fullSession])
    await readAnswer(await post(session, toolCallBody(nextId++, 'echo', { text: 'warm' })));
}, 60_000);

afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await fixture?.close();
});

describe('a 2025-11-25 session: the fast path against the SDK, same requests', () => {
  const text = (t: string) => ({ type: 'text', text: t });
  const code = (c: number) => ({ error: { code: c } });
  // Results the SDK's validation might change are settled: the SDK answers with them.
  const settled = new Set(['embedded', 'link']);
  const badSum = { sum: 'not a number' };
  const cases: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    ['a text result', 'echo', { text: 'hello' }, { result: { content: [text('hello')] } }],
    ['a tool error (isError)', 'fail', {}, { result: { isError: true } }],
    ['structured output', 'add', { a: 2, b: 3 }, { result: { structuredContent: { sum: 5 } } }],
    ['structured output missing its schema', 'bad_structured', {}, { result: { structuredContent: badSum } }],
    ['an image result', 'image', {}, { result: { content: [{ type: 'image' }, text('an image')] } }],
    ['an audio result', 'audio', {}, { result: { content: [{ type: 'audio', mimeType: 'audio/wav' }] } }],
    ["the upstream's JSON-RPC error", 'throw', {}, code(-32603)],
    ['an unknown tool', 'no_such_tool', {}, code(-32602)],
    ["a tool the principal's grants forbid", 'sample', { prompt: 'hi' }, code(-32602)],
    ['arguments over the input caps', 'echo', { text: 'x'.repeat(2_000) }, code(-32602)],
    [
      'embedded resources',
      'embedded',
      {},
      { result: { content: [{ type: 'resource' }, { type: 'resource' }] } },
    ],
    ['a resource link', 'link', {}, { result: { content: [{ type: 'resource_link' }] } }],
  ];
  for (const [what, tool, args, like] of cases) {
    const path = settled.has(tool) ? 'settled' : 'fast';
    it(`answers ${what} as the SDK does (${path})`, async () => {
      const { viaFast, seen, viaFull, late: ranLong } = await both((id) => toolCallBody(id, tool, args));
      expect(seen).toEqual([path]);
      expect(viaFast.messages).toEqual(viaFull.messages);
      expect(viaFast.messages).toEqual([expect.objectContaining({ jsonrpc: '2.0' })]);
      expect(viaFast.messages[0]).toMatchObject(like);
      // A 2025 session gets no 2026-07-28 stamp.
      expect(viaFast.messages[0]).not.toHaveProperty('result.resultType');
      expect(viaFast.status).toBe(200);
      expect(viaFast.sessionId).toBe(fastSession.id);
      expect(viaFull.text).toMatch(PRIMED_ANSWER);
      if (path === 'fast' && ranLong) {
        // It ran past STREAM_AFTER_MS (a loaded machine): its stream was opened, as designed.
        expect(viaFast.headers['content-type']).toBe('text/event-stream');
      } else if (path === 'fast') {
        // The wire: the message alone as JSON, with the headers of the SDK's JSON answers.
        expect(viaFast.headers).toEqual({ 'content-type': 'application/json' });
        expect(viaFast.text).toBe(JSON.stringify(viaFast.messages[0]));
      } else {
        // The SDK's own answer: the same headers, a priming event first.
        expect(viaFast.headers).toEqual(viaFull.headers);
        expect(viaFast.text).toMatch(PRIMED_ANSWER);
      }
    });
  }

  it('is audited under the principal', async () => {
    // A principal of its own, so the one audit entry it has is this call's.
    const auditor: GatewayPrincipal = { id: 'auditor', allows: () => true };
    const session = await openSession(fast, auditor, { version: '2025-11-25' });
    const before = outcomes.length;
    await (await post(session, toolCallBody(nextId++, 'echo', { text: 'audited' }))).text();
    expect(outcomes.slice(before)).toEqual(['fast']);
    const entries = await eventually(
      async () => (await host.audit({ actor: 'auditor', server: 'kitchen' })).entries,
      (found) => found.length > 0,
      { what: 'saw the call audited' },
    );
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'tool_call',
        outcome: 'ok',
        details: expect.objectContaining({ tool: 'echo' }),
      }),
    ]);
  });

  it('takes only requests the SDK itself classifies as 2025-era', async () => {
    const older = { ...fastSession, version: '2025-06-18' };
    const forms: [Session, Record<string, string>, string | number][] = [
      [fastSession, {}, 1],
      [older, {}, 'a string id'],
      [fastSession, { accept: 'text/event-stream, application/json' }, 2],
      [fastSession, { 'content-type': 'application/json; charset=utf-8' }, 3],
    ];
    for (const [session, headers, id] of forms) {
      const body = toolCallBody(id, 'echo', { text: 'classified' });
      const request = mcpRequest(body, { ...sessionHeaders(session), ...headers });
      expect(plainSessionCall(requestHead(request), body, session.version)).toBeDefined();
      expect(await isLegacyRequest(request, body)).toBe(true);
      // Classified from the bytes as well as from the parsed body.
      expect(await isLegacyRequest(request)).toBe(true);
    }
  });
});

describe("large and awkward answers on a 2025-11-25 session: the SDK's bytes", () => {
  // Past JSON_ANSWER_MAX_CHARS both answer as a stream: the priming event, then the message.
  // The fast path writes it from the result's one encoding (core/json-text.ts) and stores that
  // text; the SDK encodes the message itself. Event ids are each stream's own.
  const large: [string, Record<string, unknown>, string][] = [
    ['64 KiB of digits', { chars: 64 * 1024 }, 'fast'],
    ['1 MiB of digits', { chars: 1024 * 1024 }, 'fast'],
    ['64 KiB of multi-byte, astral and escaped text', { chars: 64 * 1024, form: 'utf8' }, 'fast'],
    ['1 MiB of multi-byte, astral and escaped text', { chars: 1024 * 1024, form: 'utf8' }, 'fast'],
    ['200 text blocks of 64 KiB in all', { chars: 64 * 1024, form: 'blocks' }, 'fast'],
    ['a 64 KiB base64 image', { chars: 64 * 1024, form: 'image' }, 'fast'],
    ['a 1 MiB base64 image', { chars: 1024 * 1024, form: 'image' }, 'fast'],
    ['text, image and audio with _meta, 256 KiB', { chars: 256 * 1024, form: 'mixed' }, 'fast'],
    ["64 KiB with the upstream's server identity", { chars: 64 * 1024, form: 'meta' }, 'fast'],
    ['embedded resources of 64 KiB', { chars: 64 * 1024, form: 'embedded' }, 'settled'],
  ];
  const withoutIds = (text: string) => text.replace(/^id: [^\n]+$/gm, 'id: -');
  for (const [what, args, path] of large) {
    it(`answers ${what} as the SDK writes it (${path})`, async () => {
      const { viaFast, seen, viaFull } = await both((id) => toolCallBody(id, 'large', args));
      expect(seen).toEqual([path]);
      expect(viaFast.messages).toEqual(viaFull.messages);
      expect(viaFast.headers).toEqual(viaFull.headers);
      expect(viaFull.text).toMatch(PRIMED_ANSWER);
      expect(withoutIds(viaFast.text)).toBe(withoutIds(viaFull.text));
      // What a resuming client gets is the same message, from the text the fast path stored.
      const priming = PRIMED_ANSWER.exec(viaFast.text)?.[1];
      const reader = new SseReader((await resume(fastSession, priming!)).body);
      try {
        expect((await reader.nextMessage(10_000)).message).toEqual(viaFast.messages[0]);
      } finally {
        await reader.cancel();
      }
    }, 30_000);
  }

  it('audits the size of a large result as its JSON', async () => {
    const auditor: GatewayPrincipal = { id: 'large-auditor', allows: () => true };
    const session = await openSession(fast, auditor, { version: '2025-11-25' });
    const answer = await readAnswer(
      await post(session, toolCallBody(nextId++, 'large', { chars: 64 * 1024, form: 'utf8' })),
    );
    const { result } = answer.messages[0] as { result: unknown };
    const entries = await eventually(
      async () => (await host.audit({ actor: 'large-auditor', server: 'kitchen' })).entries,
      (found) => found.length > 0,
      { what: 'saw the call audited' },
    );
    expect(entries[0]!.details).toMatchObject({ resultBytes: Buffer.byteLength(JSON.stringify(result)) });
  });
});

describe('a 2025-06-18 session', () => {
  const older = async () => ({
    fast: await openSession(fast, tester, { version: '2025-06-18' }),
    full: await openSession(full, tester, { version: '2025-06-18' }),
  });

  it('gets the answer of a quick call as JSON, the message the SDK sends', async () => {
    const on = await older();
    const {
      viaFast,
      seen,
      viaFull,
      late: ranLong,
    } = await both((id) => toolCallBody(id, 'echo', { text: 'older' }), on);
    expect(seen).toEqual(['fast']);
    expect(viaFast.messages).toEqual(viaFull.messages);
    expect(viaFast.headers).toEqual({ 'content-type': ranLong ? 'text/event-stream' : 'application/json' });
    expect(viaFast.sessionId).toBe(on.fast.id);
    expect(viaFull.text).toMatch(UNPRIMED_ANSWER);
  });

  it('gets a large answer without a priming event, as the SDK writes it', async () => {
    const on = await older();
    const { viaFast, seen, viaFull } = await both(
      (id) => toolCallBody(id, 'large', { chars: JSON_ANSWER_MAX_CHARS }),
      on,
    );
    expect(seen).toEqual(['fast']);
    expect(viaFast.messages).toEqual(viaFull.messages);
    expect(viaFast.headers).toEqual(viaFull.headers);
    expect(viaFast.text).toMatch(UNPRIMED_ANSWER);
  });
});

describe('the form of a quick answer', () => {
  it('is JSON up to JSON_ANSWER_MAX_CHARS of it, and an SSE stream past that', async () => {
    // The answer's JSON around the text: find the text length whose answer is exactly at the bound.
    const probe = await readAnswer(await post(fastSession, toolCallBody(nextId, 'large', { chars: 0 })));
    const around = probe.text.length + String(nextId + 1).length - String(nextId).length;
    const atBound = JSON_ANSWER_MAX_CHARS - around;
    nextId++;
    const atId = nextId++;
    const at = await readAnswer(await post(fastSession, toolCallBody(atId, 'large', { chars: atBound })));
    if (!late.has(atId)) {
      expect(at.headers['content-type']).toBe('application/json');
      expect(at.text).toHaveLength(JSON_ANSWER_MAX_CHARS);
    }
    const over = await readAnswer(
      await post(fastSession, toolCallBody(nextId++, 'large', { chars: atBound + 1 })),
    );
    expect(over.headers['content-type']).toBe('text/event-stream');
    expect(over.text).toMatch(PRIMED_ANSWER);
    const [message] = over.messages as [{ result: { content: [{ text: string }] } }];
    expect(over.messages).toHaveLength(1);
    expect(message.result.content[0].text).toHaveLength(atBound + 1);
  });
});

describe('streams of the fast path', () => {
  it('can be resumed: GET with Last-Event-ID replays a large answer', async () => {
    const before = outcomes.length;
    const answer = await readAnswer(
      await post(fastSession, toolCallBody(nextId++, 'large', { chars: JSON_ANSWER_MAX_CHARS })),
    );
    expect(outcomes.slice(before)).toEqual(['fast']);
    const priming = PRIMED_ANSWER.exec(answer.text)?.[1];
    expect(priming).toBeDefined();
    const replay = await resume(fastSession, priming!);
    expect(replay.status).toBe(200);
    const reader = new SseReader(replay.body);
    try {
      expect((await reader.nextMessage(5_000)).message).toEqual(answer.messages[0]);
    } finally {
      await reader.cancel();
    }
  });

  it('keeps the answer of a call whose client dropped the stream, and does not cancel the call', async () => {
    const id = nextId++;
    const cancelled = kitchen.stats.cancelled;
    const response = await post(fastSession, toolCallBody(id, 'slow', { ms: STREAM_AFTER_MS * 3 }));
    const reader = new SseReader(response.body);
    const priming = await reader.next(5_000);
    expect(priming?.id).toBeDefined();
    await reader.cancel();
    await callEnds(id);
    expect(kitchen.stats.cancelled).toBe(cancelled);
    const replayed = new SseReader((await resume(fastSession, priming!.id!)).body);
    try {
      const { message } = await replayed.nextMessage(5_000);
      expect(message).toMatchObject({ id, result: { content: [{ type: 'text', text: 'slow done' }] } });
    } finally {
      await replayed.cancel();
    }
  });

  it('opens the stream of a call that runs past STREAM_AFTER_MS, and the answer follows on it', async () => {
    const ms = STREAM_AFTER_MS * 8;
    const id = nextId++;
    const before = outcomes.length;
    const sdk = post(fullSession, toolCallBody(id, 'slow', { ms })).then(readAnswer);
    const response = await post(fastSession, toolCallBody(id, 'slow', { ms }));
    // The response is here while the call still runs upstream.
    expect(finished.has(id)).toBe(false);
    expect(outcomes.slice(before)).toEqual(['fast']);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe(fastSession.id);
    const reader = new SseReader(response.body);
    try {
      const priming = await reader.next(5_000);
      expect(priming).toMatchObject({ retry: RETRY_MS, data: '' });
      expect(finished.has(id)).toBe(false);
      const { message } = await reader.nextMessage(10_000);
      expect(finished.has(id)).toBe(true);
      expect([message]).toEqual((await sdk).messages);
      expect(message).toMatchObject({ id, result: { content: [{ type: 'text', text: 'slow done' }] } });
      expect(await reader.next(5_000)).toBeUndefined();
    } finally {
      await reader.cancel();
    }
  });
});

describe('a settled result after the stream opened', () => {
  it('takes the SDK answer to a link from a call that ran past STREAM_AFTER_MS onto the open stream', async () => {
    const ms = STREAM_AFTER_MS * 3;
    const id = nextId++;
    const before = outcomes.length;
    const sdk = post(fullSession, toolCallBody(id, 'slow_link', { ms })).then(readAnswer);
    const response = await post(fastSession, toolCallBody(id, 'slow_link', { ms }));
    expect(finished.has(id)).toBe(false);
    const reader = new SseReader(response.body);
    try {
      expect(await reader.next(5_000)).toMatchObject({ retry: RETRY_MS, data: '' });
      const { message } = await reader.nextMessage(10_000);
      // The stream was the fast path's; the answer on it is the SDK's.
      expect(outcomes.slice(before)).toEqual(['fast']);
      expect(settledIds.has(id)).toBe(true);
      expect([message]).toEqual((await sdk).messages);
      expect(message).toMatchObject({
        id,
        result: { content: [{ type: 'resource_link', uri: 'kitchen://text' }] },
      });
      expect(await reader.next(5_000)).toBeUndefined();
    } finally {
      await reader.cancel();
    }
  });
});

describe('cancellation of a fast-path call', () => {
  /** Starts a slow call on `session` and waits until it runs upstream; returns its id and response. */
  async function slowCall(session: Session): Promise<{ id: number; response: Response }> {
    const id = nextId++;
    const calls = upstreamCalls();
    const before = outcomes.length;
    const response = await post(session, toolCallBody(id, 'slow', { ms: 60_000 }));
    expect(outcomes.slice(before)).toEqual(['fast']);
    await eventually(upstreamCalls, (n) => n > calls, { what: 'saw the call reach the upstream' });
    expect(finished.has(id)).toBe(false);
    return { id, response };
  }

  it('cancels the call upstream on notifications/cancelled, and ends its stream without an answer', async () => {
    const cancelled = kitchen.stats.cancelled;
    const { id, response } = await slowCall(fastSession);
    const notice = await post(fastSession, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'changed my mind' },
    });
    expect(notice.status).toBe(202);
    await upstreamCancels(cancelled);
    await callEnds(id);
    expect((await readAnswer(response)).messages).toEqual([]);
    // The cancelled call's controller fired: the calls after it get fresh ones and run.
    const next = nextId++;
    const answers = await Promise.all(
      [next, nextId++].map(
        async (n) =>
          (await readAnswer(await post(fastSession, toolCallBody(n, 'echo', { text: `after ${n}` }))))
            .messages,
      ),
    );
    expect(answers).toEqual([
      [
        {
          jsonrpc: '2.0',
          id: next,
          result: expect.objectContaining({ content: [{ type: 'text', text: `after ${next}` }] }),
        },
      ],
      [
        {
          jsonrpc: '2.0',
          id: next + 1,
          result: expect.objectContaining({ content: [{ type: 'text', text: `after ${next + 1}` }] }),
        },
      ],
    ]);
  });

  it('cancels the call upstream when the session is closed with DELETE', async () => {
    const session = await openSession(fast, tester, { version: '2025-11-25' });
    const cancelled = kitchen.stats.cancelled;
    const { id, response } = await slowCall(session);
    const closed = await fast.handle(
      mcpRequest(undefined, sessionHeaders(session), { method: 'DELETE' }),
      tester,
    );
    expect(closed.status).toBe(200);
    await upstreamCancels(cancelled);
    await callEnds(id);
    expect((await readAnswer(response)).messages).toEqual([]);
  });
});

describe("the upstream's log lines during a call", () => {
  it('go on the stream as the SDK relays them, at the level the session set', async () => {
    const on = {
      fast: await openSession(fast, tester, { version: '2025-11-25' }),
      full: await openSession(full, tester, { version: '2025-11-25' }),
    };
    const log = (level: string, message: string) => (id: number) =>
      toolCallBody(id, 'log', { level, message });
    const relayed = await both(log('info', 'an info line'), on);
    expect(relayed.seen).toEqual(['fast']);
    expect(relayed.viaFast.messages).toEqual(relayed.viaFull.messages);
    expect(relayed.viaFast.messages[0]).toMatchObject({
      method: 'notifications/message',
      params: { level: 'info', logger: 'kitchen' },
    });
    expect(relayed.viaFast.messages).toHaveLength(2);

    const setLevel = await both(
      (id) => ({ jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: 'error' } }),
      on,
    );
    expect(setLevel.viaFast.messages).toEqual(setLevel.viaFull.messages);
    const quiet = await both(log('info', 'below the level'), on);
    expect(quiet.seen).toEqual(['fast']);
    expect(quiet.viaFast.messages).toEqual(quiet.viaFull.messages);
    expect(quiet.viaFast.messages).toEqual([expect.objectContaining({ result: expect.anything() })]);
    const loud = await both(log('error', 'at the level'), on);
    expect(loud.viaFast.messages).toEqual(loud.viaFull.messages);
    expect(loud.viaFast.messages[0]).toMatchObject({ params: { level: 'error' } });
  });
});

describe('calls in flight and the host', () => {
  it('follow the log through one host listener, however many run at once', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const base = host.listenerCount('log');
    try {
      const ids = Array.from({ length: 24 }, () => nextId++);
      const answers = ids.map(async (id) =>
        readAnswer(await post(fastSession, toolCallBody(id, 'slow', { ms: 300 }))),
      );
      await eventually(
        () => host.listenerCount('log'),
        (n) => n > base,
        { what: 'saw the calls follow the log' },
      );
      expect(host.listenerCount('log')).toBe(base + 1);
      const done = await Promise.all(answers);
      expect(done.map((answer) => answer.messages.at(-1))).toEqual(
        ids.map(() =>
          expect.objectContaining({
            result: expect.objectContaining({ content: [{ type: 'text', text: 'slow done' }] }),
          }),
        ),
      );
      await eventually(
        () => host.listenerCount('log'),
        (n) => n === base,
        { what: 'saw the listener go' },
      );
      // Give a MaxListenersExceededWarning, emitted on the next tick, its chance.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('what the fast path is not offered', () => {
  const NOT_OFFERED = { text: 'x' };
  const PROGRESS = { _meta: { progressToken: 1 } };
  it.each([
    ['elicitation', { elicitation: {} }],
    ['roots', { roots: {} }],
    ['sampling', { sampling: {} }],
  ])('a session whose client offers %s: the SDK answers', async (_what, capabilities) => {
    const on = {
      fast: await openSession(fast, tester, { version: '2025-11-25', capabilities }),
      full: fullSession,
    };
    const { viaFast, seen, viaFull } = await both((id) => toolCallBody(id, 'echo', { text: 'asked' }), on);
    expect(seen).toEqual([]);
    expect(viaFast.messages).toEqual(viaFull.messages);
    expect(viaFast.messages[0]).toMatchObject({ result: { content: [{ type: 'text', text: 'asked' }] } });
  });

  it.each([
    ['a call with a progress token', (id: number) => toolCallBody(id, 'echo', NOT_OFFERED, PROGRESS), {}],
    [
      'a call whose MCP-Protocol-Version is not the negotiated one',
      (id: number) => toolCallBody(id, 'echo', NOT_OFFERED),
      { 'mcp-protocol-version': '2025-06-18' },
    ],
    ['a batch', (id: number) => [toolCallBody(id, 'echo', NOT_OFFERED)], {}],
  ])('%s: the SDK answers', async (_what, body, headers) => {
    const { viaFast, seen, viaFull } = await both(body, undefined, headers);
    expect(seen).toEqual([]);
    expect(viaFast.status).toBe(viaFull.status);
    expect(viaFast.messages).toEqual(viaFull.messages);
    expect(viaFast.messages).toEqual([
      expect.objectContaining({
        result: expect.objectContaining({ content: [{ type: 'text', text: 'x' }] }),
      }),
    ]);
  });
});
