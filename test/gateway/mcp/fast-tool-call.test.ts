import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../../src/core/config/gateway-config.js';
import { startHttpGateway } from '../../../src/gateway/http-gateway.js';
import { type FastToolCall, fastToolCall } from '../../../src/gateway/mcp/fast-tool-call.js';
import type { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';
import type { GatewayPrincipal } from '../../../src/gateway/mcp/served-catalog.js';
import type { Host } from '../../../src/host/host.js';
import type { KitchenHttpHandle } from '../../fixtures/kitchen-sink.js';
import { eventually } from '../../helpers/wait.js';
import { quietLog } from '../modern-client.js';
import { endpointUnderTest, type KitchenHost, kitchenHost, TEST_LIMITS } from './endpoint-under-test.js';

/**
 * The fast path against the full path, on the same host and upstream (the kitchen sink over
 * 2026-07-28 HTTP): the same requests through an endpoint that takes the fast path and one that
 * never does must get the same answers, and a spy on the fast path says which requests it
 * answered itself, which it settled for the full path to answer, and which it declined.
 */
const EXPOSED = ['kitchen/*'];
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'diff-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

let fixture: KitchenHost | undefined;
let kitchen: KitchenHttpHandle;
let host: Host;
const endpoints: McpEndpoint[] = [];
/** What the fast path did with each request it was offered, in order. */
const outcomes: string[] = [];

/** An endpoint over `host`, with the fast path (spied on) or without it. */
function endpoint(options: { fast: boolean; consent?: 'on' | 'off' }): McpEndpoint {
  const consent = options.consent ?? 'off';
  const real = fastToolCall({
    host,
    naming: 'passthrough-unique',
    exposeTools: EXPOSED,
    consent,
    limits: TEST_LIMITS,
    management: false,
  });
  const spy: FastToolCall = async (request) => {
    let settled: string | undefined;
    const answer = await real({
      ...request,
      fullPath: (call) => {
        settled = call?.kind ?? 'none';
        return request.fullPath(call);
      },
    });
    outcomes.push(answer === undefined ? 'declined' : settled !== undefined ? `settled:${settled}` : 'fast');
    return answer;
  };
  const made = endpointUnderTest(host, {
    exposed: EXPOSED,
    consent,
    ...(options.fast && { fastToolCall: spy }),
  });
  endpoints.push(made);
  return made;
}

const tester: GatewayPrincipal = { id: 'tester', allows: (_server, tool) => tool !== 'sample' };

/** A 2026-07-28 `tools/call` as a client sends it: body, standard headers, envelope. */
function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  options: { id?: number; signal?: AbortSignal; meta?: Record<string, unknown> } = {},
): { request: Request; body: unknown } {
  const request = new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    ...(options.signal && { signal: options.signal }),
  });
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 7,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...ENVELOPE, ...options.meta } },
  };
  return { request, body };
}

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly json: Record<string, unknown>;
}

async function answer(through: McpEndpoint, call: { request: Request; body: unknown }): Promise<Answer> {
  const response = await through.handle(call.request, tester, call.body);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    json: (await response.json()) as Record<string, unknown>,
  };
}

let fast: McpEndpoint;
let full: McpEndpoint;

beforeAll(async () => {
  fixture = await kitchenHost();
  ({ host, kitchen } = fixture);
  expect(host.upstreamProtocol('kitchen').era).toBe('modern');
  fast = endpoint({ fast: true });
  full = endpoint({ fast: false });
}, 60_000);

afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await fixture?.close();
});

describe('fast path against full path, same requests', () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['a text result', 'echo', { text: 'hello' }, 'fast'],
    ['a tool error (isError)', 'fail', {}, 'fast'],
    ['structured output', 'add', { a: 2, b: 3 }, 'fast'],
    ['structured output that misses its schema', 'bad_structured', {}, 'fast'],
    ['an image result', 'image', {}, 'fast'],
    ['an audio result', 'audio', {}, 'fast'],
    ["the upstream's JSON-RPC error", 'throw', {}, 'fast'],
    ['an unknown tool', 'no_such_tool', {}, 'fast'],
    ["a tool the principal's grants forbid", 'sample', {}, 'fast'],
    ['arguments over the input caps', 'echo', { text: 'x'.repeat(2_000) }, 'fast'],
    ['embedded resources (left to the SDK)', 'embedded', {}, 'settled:relayed'],
    ['a resource link (left to the SDK)', 'link', {}, 'settled:relayed'],
  ];
  for (const [what, tool, args, path] of cases) {
    it(`answers ${what} as the full path does (${path})`, async () => {
      const before = outcomes.length;
      const viaFast = await answer(fast, toolCall(tool, args));
      expect(outcomes.slice(before)).toEqual([path]);
      const viaFull = await answer(full, toolCall(tool, args));
      expect(outcomes.slice(before)).toEqual([path]);
      expect(viaFast).toEqual(viaFull);
      expect(viaFast.status).toBe(200);
      expect(viaFast.type).toBe('application/json');
      expect(viaFast.json.id).toBe(7);
    });
  }

  // Large and awkward answers, byte for byte: the fast path writes them from their parts' one
  // encoding (core/json-text.ts), the full path through the SDK's own validation and encoding.
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
    [
      'embedded resources of 64 KiB (left to the SDK)',
      { chars: 64 * 1024, form: 'embedded' },
      'settled:relayed',
    ],
  ];
  for (const [what, args, path] of large) {
    it(`answers ${what} with the full path's bytes (${path})`, async () => {
      const text = async (through: McpEndpoint) => {
        const response = await through.handle(
          toolCall('large', args).request,
          tester,
          toolCall('large', args).body,
        );
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          text: await response.text(),
        };
      };
      const before = outcomes.length;
      const viaFast = await text(fast);
      expect(outcomes.slice(before)).toEqual([path]);
      const viaFull = await text(full);
      expect(viaFast.text.length).toBeGreaterThan(Number(args.chars) / 2);
      expect(viaFast).toEqual(viaFull);
    }, 30_000);
  }

  it('passes an image block and structured content through unchanged, stamped like the SDK does', async () => {
    const image = (await answer(fast, toolCall('image'))).json.result as Record<string, unknown>;
    expect(image.resultType).toBe('complete');
    expect((image.content as { type: string }[]).map((c) => c.type)).toEqual(['image', 'text']);
    const meta = image._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'kitchen-sink', version: '1.0.0' });
    const sum = (await answer(fast, toolCall('add', { a: 1, b: 1 }))).json.result as Record<string, unknown>;
    expect(sum.structuredContent).toEqual({ sum: 2 });
    const failed = (await answer(fast, toolCall('fail'))).json.result as Record<string, unknown>;
    expect(failed.isError).toBe(true);
  });

  it('settles an upstream round for the full path: same question, a state the next round accepts', async () => {
    const before = outcomes.length;
    const viaFast = await answer(fast, toolCall('confirm'));
    expect(outcomes.slice(before)).toEqual(['settled:relayed']);
    const viaFull = await answer(full, toolCall('confirm'));
    const round = viaFast.json.result as Record<string, unknown>;
    const { requestState: fastState, ...fastRest } = round;
    const { requestState: fullState, ...fullRest } = viaFull.json.result as Record<string, unknown>;
    expect(fastRest).toEqual(fullRest);
    expect(round.resultType).toBe('input_required');
    expect(Object.keys(round.inputRequests as object)).toEqual(['confirm']);
    expect(typeof fastState).toBe('string');
    expect(typeof fullState).toBe('string');
    // The retry carries answers: the full path's, and it accepts the state the settled call sealed.
    const retry = toolCall('confirm');
    const params = (retry.body as { params: Record<string, unknown> }).params;
    params.inputResponses = { confirm: { action: 'accept', content: { confirm: true } } };
    params.requestState = fastState;
    const final = await answer(fast, retry);
    expect(outcomes.at(-1)).toBe('settled:relayed');
    const content = (final.json.result as { content: { text: string }[] }).content;
    expect(JSON.parse(content[0]!.text)).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('audits a fast call under the principal, like the full path', async () => {
    await answer(fast, toolCall('echo', { text: 'audited' }));
    const entries = (await host.audit({ actor: 'tester', server: 'kitchen' })).entries;
    expect(entries[0]).toMatchObject({
      action: 'tool_call',
      outcome: 'ok',
      details: expect.objectContaining({ tool: 'echo' }),
    });
  });

  it("cancels the upstream call when the client goes away (the request's signal)", async () => {
    const controller = new AbortController();
    const started = kitchen.stats.requests['tools/call'] ?? 0;
    const cancelled = kitchen.stats.cancelled;
    const before = outcomes.length;
    const slow = toolCall('slow', { ms: 60_000 }, { signal: controller.signal });
    const pending = fast.handle(slow.request, tester, slow.body);
    await eventually(
      () => kitchen.stats.requests['tools/call'] ?? 0,
      (n) => n > started,
      { what: 'saw the call reach the upstream' },
    );
    controller.abort(new Error('the client went away'));
    const response = await pending;
    expect(response.status).toBe(499);
    expect(outcomes.slice(before)).toEqual(['fast']);
    await eventually(
      () => kitchen.stats.cancelled,
      (n) => n > cancelled,
      { what: 'saw the upstream cancel the call', timeoutMs: 10_000 },
    );
  });
});

describe('fast path declines what it does not handle', () => {
  it('leaves a call the consent gate would ask about to the full path, which asks', async () => {
    host.governor.setMode('asker', 'auto-edit');
    const asking = endpoint({ fast: true, consent: 'on' });
    const before = outcomes.length;
    const call = toolCall('echo', { text: 'may I' });
    const response = await asking.handle(call.request, { ...tester, id: 'asker' }, call.body);
    expect(outcomes.slice(before)).toEqual(['declined']);
    const result = ((await response.json()) as { result: Record<string, unknown> }).result;
    expect(result.resultType).toBe('input_required');
    const question = (result.inputRequests as Record<string, { params: { message: string } }>)[
      'switchboard/consent'
    ];
    expect(question?.params.message).toMatch(/^Allow kitchen\.echo with \{"text":"may I"\}\?/);
  });

  it('is not offered calls with a progress token, and the full path relays progress', async () => {
    const before = outcomes.length;
    const call = toolCall('progress', { steps: 2, delayMs: 1 }, { meta: { progressToken: 'p-1' } });
    const response = await fast.handle(call.request, tester, call.body);
    expect(outcomes.length).toBe(before);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await response.text();
    expect(events).toContain('"method":"notifications/progress"');
    expect(events).toContain('"progressToken":"p-1"');
    expect(events).toContain('"text":"done"');
  });

  it('is not offered calls with an idempotency key, and the full path runs a repeated one once', async () => {
    const before = outcomes.length;
    const once = async () => {
      const call = toolCall('add_tool', {}, { meta: { idempotencyKey: 'fast-k1' } });
      const json = (await (await fast.handle(call.request, tester, call.body)).json()) as {
        result: { content: { text: string }[] };
      };
      return json.result.content[0]?.text;
    };
    const [first, second] = [await once(), await once()];
    expect(first).toMatch(/^dynamic_\d+$/);
    expect(second).toBe(first);
    expect(outcomes.length).toBe(before);
  });
});

describe('over HTTP, the whole gateway', () => {
  it('answers with the fast path as without it, status and headers included', async () => {
    const settings = resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off' });
    const withFast = await startHttpGateway(host, settings, { log: quietLog });
    const without = await startHttpGateway(host, settings, { log: quietLog, fullPathOnly: true });
    try {
      const post = async (url: string, tool: string, args: Record<string, unknown>) => {
        const { request, body } = toolCall(tool, args);
        const response = await fetch(url, {
          method: 'POST',
          headers: request.headers,
          body: JSON.stringify(body),
        });
        // Not compared: per-request values, and the framing (a known length or chunked).
        const headers = Object.fromEntries(
          [...response.headers].filter(
            ([name]) => !['date', 'x-request-id', 'content-length', 'transfer-encoding'].includes(name),
          ),
        );
        return { status: response.status, headers, json: await response.json() };
      };
      for (const [tool, args] of [
        ['echo', { text: 'over http' }],
        ['fail', {}],
        ['throw', {}],
        ['no_such_tool', {}],
        ['link', {}],
      ] as const) {
        const a = await post(withFast.url, tool, args);
        const b = await post(without.url, tool, args);
        expect(a, tool).toEqual(b);
      }
    } finally {
      await withFast.close();
      await without.close();
    }
  });
});
