import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ElicitationParams } from '../../src/client/server-requests.js';
import { type ParkedCall, ParkedCalls } from '../../src/gateway/mcp/parked-calls.js';
import type { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import {
  callRaw,
  type GatewayUnderTest,
  type Raw,
  rpcError,
  startGatewayUnderTest,
} from './modern-client.js';

/**
 * Parking, end to end: a 2026-07-28 client (SDK v2, pinned, handing `input_required` answers
 * back itself) calls tools of the kitchen-sink fixture pinned to the 2025 era through a real
 * gateway on 127.0.0.1. The upstream's mid-call elicitation, sampling and roots requests come
 * back as input requests, and the retries' answers reach the waiting upstream. Then the
 * registry alone: expiry on an injected clock, the cap, and cleanup by its timer.
 */
const kitchen = {
  name: 'kitchen',
  command: process.execPath,
  args: [kitchenSinkBin],
  protocol: 'legacy',
  // The ceiling a client's roots are confined to (client/roots.ts).
  roots: [{ uri: 'file:///tmp' }],
};
let under: GatewayUnderTest;
let host: Host;

beforeAll(async () => {
  under = await startGatewayUnderTest({
    servers: [kitchen],
    ready: 'mcp__kitchen__confirm',
    mode: 'full-auto',
    consent: 'off',
  });
  host = under.host;
}, 60_000);

afterAll(async () => {
  await under?.close();
});

const connect = (capabilities: Record<string, unknown>) => under.connect(capabilities);
const call = callRaw;
const text = (result: Raw) => (result.content as { text: string }[])[0]?.text;

/** The one input request of an `input_required` round, with its key. */
function onlyRequest(round: Raw): { key: string; method: string; params: Raw } {
  expect(round.resultType).toBe('input_required');
  const requests = Object.entries(round.inputRequests as Record<string, { method: string; params?: Raw }>);
  expect(requests).toHaveLength(1);
  const [key, request] = requests[0]!;
  return { key, method: request.method, params: request.params ?? {} };
}

describe('parking, a 2026-07-28 client calling a 2025-era upstream', () => {
  it('runs against an upstream the host speaks the 2025 era with', () => {
    expect(host.upstreamProtocol('kitchen').era).toBe('legacy');
  });

  it('returns the upstream elicitation as an input request and hands the answer back to it', async () => {
    const client = await connect({ elicitation: { form: {} } });
    const first = await call(client, 'confirm');
    const asked = onlyRequest(first);
    expect(asked.method).toBe('elicitation/create');
    expect(asked.params.message).toBe('Please confirm');
    expect(typeof first.requestState).toBe('string');
    const content = { confirm: true, name: 'Ada', color: 'red' };
    const final = await call(client, 'confirm', {
      inputResponses: { [asked.key]: { action: 'accept', content } },
      requestState: first.requestState,
    });
    expect(final.resultType ?? 'complete').toBe('complete');
    expect(JSON.parse(String(text(final)))).toEqual({ action: 'accept', content });

    // The park was used up: the same state again is refused, with what to do.
    const again = await rpcError(
      call(client, 'confirm', {
        inputResponses: { [asked.key]: { action: 'accept', content } },
        requestState: first.requestState,
      }),
    );
    expect(again?.code).toBe(-32602);
    expect(again?.message).toMatch(/start the call again/);
  });

  it('parks a sampling request and returns the model reply the client gave', async () => {
    const client = await connect({ sampling: {} });
    const first = await call(client, 'sample', { arguments: { prompt: 'Say hi' } });
    const asked = onlyRequest(first);
    expect(asked.method).toBe('sampling/createMessage');
    expect(JSON.stringify(asked.params.messages)).toContain('Say hi');
    const final = await call(client, 'sample', {
      arguments: { prompt: 'Say hi' },
      inputResponses: {
        [asked.key]: { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' },
      },
      requestState: first.requestState,
    });
    expect(text(final)).toBe('hi there');
  });

  it("parks a roots listing and hands the client's roots to the upstream", async () => {
    const client = await connect({ roots: {} });
    const first = await call(client, 'roots');
    const asked = onlyRequest(first);
    expect(asked.method).toBe('roots/list');
    const roots = [{ uri: 'file:///tmp/parked-project', name: 'project' }];
    const final = await call(client, 'roots', {
      inputResponses: { [asked.key]: { roots } },
      requestState: first.requestState,
    });
    expect(JSON.parse(String(text(final)))).toEqual(roots);
  });

  it('refuses a retry with another call’s arguments or an answer of the wrong kind', async () => {
    const client = await connect({ sampling: {} });
    const first = await call(client, 'sample', { arguments: { prompt: 'one' } });
    const asked = onlyRequest(first);
    const otherArgs = await rpcError(
      call(client, 'sample', {
        arguments: { prompt: 'two' },
        inputResponses: {
          [asked.key]: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' },
        },
        requestState: first.requestState,
      }),
    );
    expect(otherArgs?.code).toBe(-32602);
    const wrongKind = await rpcError(
      call(client, 'sample', {
        arguments: { prompt: 'one' },
        inputResponses: { [asked.key]: { action: 'accept', content: {} } },
        requestState: first.requestState,
      }),
    );
    expect(wrongKind?.code).toBe(-32602);
    // Neither used the park up: the right answer still completes the call.
    const final = await call(client, 'sample', {
      arguments: { prompt: 'one' },
      inputResponses: {
        [asked.key]: { role: 'assistant', content: { type: 'text', text: 'fine' }, model: 'm' },
      },
      requestState: first.requestState,
    });
    expect(text(final)).toBe('fine');
  });

  it('does not park for a client that declares no elicitation: the Inbox answers, as before', async () => {
    const client = await connect({ roots: {} });
    const seen: string[] = [];
    const answer = (item: { id: string; kind: string; server: string }) => {
      seen.push(`${item.kind} from ${item.server}`);
      host.inbox.resolve(item.id, 'accept', { confirm: true, name: 'Inbox', color: 'green' });
    };
    host.inbox.on('added', answer);
    try {
      const result = await call(client, 'confirm');
      expect(result.resultType ?? 'complete').toBe('complete');
      expect(JSON.parse(String(text(result)))).toEqual({
        action: 'accept',
        content: { confirm: true, name: 'Inbox', color: 'green' },
      });
      expect(seen).toEqual(['elicitation from kitchen']);
    } finally {
      host.inbox.off('added', answer);
    }
  });
});

describe('parking under consent', () => {
  let consenting: GatewayUnderTest;
  beforeAll(async () => {
    consenting = await startGatewayUnderTest({
      servers: [kitchen],
      ready: 'mcp__kitchen__confirm',
      mode: 'auto-edit',
      consent: 'on',
    });
  }, 60_000);
  afterAll(async () => {
    await consenting?.close();
  });

  it('asks for consent once: the parked round keeps it', async () => {
    const client = await consenting.connect({ elicitation: { form: {} } });
    const consentRound = await call(client, 'confirm');
    expect(Object.keys(consentRound.inputRequests as Raw)).toEqual(['switchboard/consent']);
    const parked = await call(client, 'confirm', {
      inputResponses: { 'switchboard/consent': { action: 'accept', content: {} } },
      ...(consentRound.requestState !== undefined && { requestState: consentRound.requestState }),
    });
    const asked = onlyRequest(parked);
    expect(asked.method).toBe('elicitation/create');
    const final = await call(client, 'confirm', {
      inputResponses: { [asked.key]: { action: 'decline' } },
      requestState: parked.requestState,
    });
    expect(JSON.parse(String(text(final)))).toEqual({ action: 'decline' });
  });
});

describe('ParkedCalls, the registry', () => {
  const elicit: ElicitationParams = {
    message: 'Sure?',
    requestedSchema: { type: 'object', properties: {} },
  };
  const done = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

  /** A call whose upstream asks once (elicitation) and returns the answer's action. */
  function askingCall(registry: ParkedCalls) {
    const parked = registry.open();
    const caller = parked.caller({ elicit: true, sample: false, roots: false });
    const upstream = new AbortController();
    let signal: AbortSignal | undefined;
    const asked = { settled: undefined as string | undefined };
    parked.start(async (s) => {
      signal = s;
      try {
        const answer = await caller!.elicit!(elicit, upstream.signal);
        asked.settled = `answered ${answer.action}`;
        return done(answer.action);
      } catch (error) {
        asked.settled = `refused: ${(error as Error).message}`;
        throw error;
      }
    });
    return { parked, asked, signal: () => signal };
  }

  async function parkedKey(parked: ParkedCall): Promise<string> {
    const round = await parked.next();
    if (!('asks' in round)) throw new Error('the call finished instead of parking');
    return Object.keys(round.asks)[0]!;
  }

  let registries: ParkedCalls[] = [];
  afterEach(() => {
    for (const registry of registries) registry.close();
    registries = [];
    vi.useRealTimers();
  });
  const registryWith = (options: ConstructorParameters<typeof ParkedCalls>[0]) => {
    const registry = new ParkedCalls(options);
    registries.push(registry);
    return registry;
  };

  it('hands an answer to the parked request and returns the finished call', async () => {
    const registry = registryWith({});
    const { parked } = askingCall(registry);
    const key = await parkedKey(parked);
    registry.admit(parked, 'alice');
    expect(registry.take(parked.id, 'bob')).toBeUndefined();
    const taken = registry.take(parked.id, 'alice');
    expect(taken).toBe(parked);
    expect(registry.size).toBe(0);
    taken!.answer({ [key]: { action: 'decline' } });
    expect(await taken!.next()).toEqual({ done: done('decline') });
  });

  it('returns requests parked together in one round', async () => {
    const registry = registryWith({});
    const parked = registry.open();
    const caller = parked.caller({ elicit: true, sample: false, roots: true })!;
    const signal = new AbortController().signal;
    parked.start(async () => {
      const [answer, roots] = await Promise.all([caller.elicit!(elicit, signal), caller.roots!(signal)]);
      return done(`${answer.action} ${roots.map((r) => r.uri).join(',')}`);
    });
    const round = await parked.next();
    expect('asks' in round && Object.keys(round.asks).sort()).toEqual(['elicit-1', 'roots-2']);
    parked.answer({ 'elicit-1': { action: 'accept' } });
    // The roots request is still unanswered: asked again at once.
    const second = await parked.next();
    expect('asks' in second && Object.keys(second.asks)).toEqual(['roots-2']);
    parked.answer({ 'roots-2': { roots: [{ uri: 'file:///a' }] } });
    expect(await parked.next()).toEqual({ done: done('accept file:///a') });
  });

  it('expires a park after its time: the upstream call is cancelled and its request refused', async () => {
    let now = 1_000;
    const registry = registryWith({ ttlMs: 300_000, now: () => now });
    const { parked, asked, signal } = askingCall(registry);
    await parkedKey(parked);
    registry.admit(parked, 'alice');
    now += 299_999;
    expect(registry.sweep()).toBe(0);
    now += 1;
    expect(registry.take(parked.id, 'alice')).toBeUndefined();
    expect(registry.size).toBe(0);
    expect(signal()?.aborted).toBe(true);
    await vi.waitFor(() => expect(asked.settled).toMatch(/^refused: No answer came/));
  });

  it('declines new parking at the cap, and makes room by expiring the oldest', async () => {
    let now = 0;
    const registry = registryWith({ max: 2, ttlMs: 1_000, now: () => now });
    const first = askingCall(registry);
    await parkedKey(first.parked);
    registry.admit(first.parked, 'alice');
    now = 500;
    const second = askingCall(registry);
    await parkedKey(second.parked);
    registry.admit(second.parked, 'alice');

    const third = askingCall(registry);
    await expect(third.parked.next()).rejects.toThrow(/holds 2 calls .* declined/);
    expect(third.asked.settled).toMatch(/limit; this request was declined/);

    now = 1_000; // the first expires, the second does not
    const fourth = askingCall(registry);
    await parkedKey(fourth.parked);
    expect(first.signal()?.aborted).toBe(true);
    expect(second.signal()?.aborted).toBe(false);
    registry.admit(fourth.parked, 'alice');
    expect(registry.size).toBe(2);
  });

  it('cleans up a call whose client never comes back, by its own timer', async () => {
    const registry = registryWith({ ttlMs: 60_000 });
    const { parked, asked, signal } = askingCall(registry);
    await parkedKey(parked);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    registry.admit(parked, 'alice');
    expect(registry.size).toBe(1);
    vi.advanceTimersByTime(60_001);
    expect(registry.size).toBe(0);
    expect(signal()?.aborted).toBe(true);
    vi.useRealTimers();
    await vi.waitFor(() => expect(asked.settled).toMatch(/^refused/));
  });

  it('drops a parked request the upstream withdrew', async () => {
    const registry = registryWith({});
    const parked = registry.open();
    const caller = parked.caller({ elicit: true, sample: false, roots: false })!;
    const upstream = new AbortController();
    let gate: () => void = () => undefined;
    const retry = new Promise<void>((resolve) => {
      gate = resolve;
    });
    parked.start(async () => {
      await caller.elicit!(elicit, upstream.signal).catch(() => undefined);
      await retry;
      const answer = await caller.elicit!(elicit, new AbortController().signal);
      return done(answer.action);
    });
    const first = await parked.next();
    expect('asks' in first && Object.keys(first.asks)).toEqual(['elicit-1']);
    upstream.abort(new Error('withdrawn'));
    gate();
    const round = await parked.next();
    expect('asks' in round && Object.keys(round.asks)).toEqual(['elicit-2']);
    parked.answer({ 'elicit-2': { action: 'cancel' } });
    expect(await parked.next()).toEqual({ done: done('cancel') });
  });
});
