import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../../src/app/telemetry.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { startTracedUpstream, type TracedUpstream } from '../fixtures/traced-upstream.js';
import { callRaw, modernClient, quietLog, type Raw } from '../gateway/modern-client.js';
import {
  type ExportedPoint,
  type ExportedSpan,
  type OtlpReceiver,
  startOtlpReceiver,
} from '../helpers/otlp-receiver.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * The whole path with the app's own SDK (what `switchboard serve` starts), exported by
 * OTLP/HTTP to a real receiver on 127.0.0.1 in both encodings and decoded there: a caller's
 * span → the gateway's SERVER span → its policy span and the host's CLIENT span → a real
 * HTTP upstream that reads the W3C context it was sent (header and `_meta`), all in one
 * trace; a two-round call; a call policy refuses; the supervisor's connect span; and the
 * metrics' values after a known load.
 */
const KIND = { internal: 1, server: 2, client: 3 } as const;
const LOAD = 4;

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

interface Run {
  readonly spans: ExportedSpan[];
  readonly points: ExportedPoint[];
  readonly upstream: TracedUpstream;
  readonly caller: { traceId: string; spanId: string };
  readonly confirmed: Raw;
  readonly refused: Raw;
}

/** Runs the scenario with `protocol`, shuts the SDK down (which flushes both signals) and returns what arrived. */
async function runScenario(protocol: 'http/json' | 'http/protobuf'): Promise<Run> {
  receiver.reset();
  const telemetry = (await startTelemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'gateway-under-test',
    // Every trace, so the connect span (a root of its own) is there to check.
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_METRIC_EXPORT_INTERVAL: '600000',
  }))!;
  const upstream = await startTracedUpstream();
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-otlp-'));
  let host: Host | undefined;
  let gateway: Awaited<ReturnType<typeof startHttpGateway>> | undefined;
  try {
    host = await Host.create({
      dataDir,
      governance: { mode: 'full-auto', rules: [{ server: 'up', tool: 'secret', effect: 'deny' }] },
      servers: [normalizeServerEntry({ name: 'up', url: upstream.url })],
    });
    await catalogHas(host, 'mcp__up__echo_meta');
    gateway = await startHttpGateway(
      host,
      resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off' }),
      { log: quietLog },
    );
    const client = await modernClient(gateway.url, { elicitation: { form: {} } });
    // The caller's span, in the same SDK: it is exported too, so the trace has all three hops.
    const span = trace.getTracer('test-agent').startSpan('agent turn', { kind: SpanKind.INTERNAL });
    const meta: Raw = {};
    propagation.inject(trace.setSpan(context.active(), span), meta);
    let confirmed: Raw;
    let refused: Raw;
    try {
      await callRaw(client, 'echo_meta', { _meta: meta });
      const first = await callRaw(client, 'confirm', { _meta: meta });
      expect(first.resultType).toBe('input_required');
      confirmed = await callRaw(client, 'confirm', {
        _meta: meta,
        inputResponses: { ok: { action: 'accept', content: {} } },
        ...(first.requestState !== undefined && { requestState: first.requestState }),
      });
      refused = await callRaw(client, 'secret', { _meta: meta }).catch(
        (error: unknown) => ({ error }) as Raw,
      );
      await callRaw(client, 'fails', { _meta: meta });
      span.end();
      // The known load: LOAD more calls, each a trace of its own.
      for (let i = 0; i < LOAD; i++) await callRaw(client, 'echo_meta');
    } finally {
      await client.close();
    }
    const caller = span.spanContext();
    // Shut down (flush) while the gateway still runs, so its gauges are in the last export.
    await telemetry.shutdown();
    return {
      spans: receiver.spans(),
      points: receiver.lastMetrics(),
      upstream,
      caller: { traceId: caller.traceId, spanId: caller.spanId },
      confirmed,
      refused,
    };
  } finally {
    await gateway?.close();
    await host?.close();
    await telemetry.shutdown();
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const one = (
  spans: ExportedSpan[],
  name: string,
  kind: number,
  where: (s: ExportedSpan) => boolean = () => true,
) => {
  const found = spans.filter((s) => s.name === name && s.kind === kind && where(s));
  expect(found, `${name}/${kind} among ${spans.map((s) => `${s.name}/${s.kind}`).join(', ')}`).toHaveLength(
    1,
  );
  return found[0]!;
};
const childrenOf = (spans: ExportedSpan[], parent: ExportedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
const point = (points: ExportedPoint[], metric: string, attributes: Record<string, unknown>) =>
  points.filter(
    (p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
  );

const runs = new Map<string, Run>();

describe.each(['http/json', 'http/protobuf'] as const)('OTLP export over %s', (protocol) => {
  beforeAll(async () => {
    runs.set(protocol, await runScenario(protocol));
  }, 90_000);

  it('arrives in the encoding asked for, with the service name and our scope', () => {
    const run = runs.get(protocol)!;
    const types = new Set(receiver.received.map((r) => r.type.split(';')[0]));
    expect(types).toEqual(
      new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
    );
    const ours = run.spans.filter((s) => s.scope === 'mcp-switchboard');
    expect(ours.length).toBeGreaterThan(10);
    expect(new Set(run.spans.map((s) => s.service))).toEqual(new Set(['gateway-under-test']));
  });

  it('one trace runs caller → gateway SERVER → policy + CLIENT → upstream, which read the context it was sent', () => {
    const { spans, caller, upstream } = runs.get(protocol)!;
    const trace = spans.filter((s) => s.traceId === caller.traceId);
    const agent = one(trace, 'agent turn', KIND.internal);
    expect(agent.spanId).toBe(caller.spanId);
    const served = one(trace, 'tools/call echo_meta', KIND.server);
    expect(served.parentSpanId).toBe(caller.spanId);
    expect(served.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo_meta',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'switchboard.mcp.era': 'modern',
      'switchboard.server.name': 'up',
      'switchboard.outcome': 'ok',
      'network.transport': 'tcp',
    });
    expect(typeof served.attributes['switchboard.principal.id']).toBe('string');
    const children = childrenOf(trace, served);
    const policy = one(children, 'switchboard.policy.decide', KIND.internal);
    expect(policy.attributes).toMatchObject({
      'switchboard.policy.verdict': 'allow',
      'gen_ai.tool.name': 'echo_meta',
    });
    const sent = one(children, 'tools/call echo_meta', KIND.client);
    expect(sent.attributes).toMatchObject({
      'switchboard.server.name': 'up',
      'switchboard.mcp.era': 'modern',
      'switchboard.outcome': 'ok',
      'switchboard.principal.id': served.attributes['switchboard.principal.id'],
    });
    // The upstream got the CLIENT span's context in both places: _meta and the HTTP header.
    const expected = `00-${caller.traceId}-${sent.spanId}-01`;
    const call = upstream.seen.find((c) => c.tool === 'echo_meta' && c.meta?.includes(caller.traceId));
    expect(call).toEqual({ tool: 'echo_meta', meta: expected, header: expected, round: 1 });
  });

  it('a two-round call is two SERVER spans in the caller trace, each with its upstream round', () => {
    const { spans, caller, upstream, confirmed } = runs.get(protocol)!;
    expect((confirmed.content as { text: string }[])[0]?.text).toBe('accept');
    const trace = spans.filter((s) => s.traceId === caller.traceId);
    const served = trace.filter((s) => s.name === 'tools/call confirm' && s.kind === KIND.server);
    expect(served).toHaveLength(2);
    for (const round of served) {
      expect(round.parentSpanId).toBe(caller.spanId);
      expect(round.attributes['switchboard.outcome']).toBe('ok');
      const sent = one(childrenOf(trace, round), 'tools/call confirm', KIND.client);
      const seen = upstream.seen.filter((c) => c.header === `00-${caller.traceId}-${sent.spanId}-01`);
      expect(seen).toHaveLength(1);
    }
    expect(upstream.seen.filter((c) => c.tool === 'confirm').map((c) => c.round)).toEqual([1, 2]);
  });

  it('a refused call: the SERVER span says denied with our code, its policy span says why, nothing went upstream', () => {
    const { spans, caller, upstream, refused } = runs.get(protocol)!;
    expect(refused.isError === true || refused.error !== undefined).toBe(true);
    const trace = spans.filter((s) => s.traceId === caller.traceId);
    const served = one(trace, 'tools/call secret', KIND.server);
    expect(served.attributes).toMatchObject({
      'switchboard.outcome': 'denied',
      'switchboard.error.code': 'POLICY_DENIED',
      'switchboard.server.name': 'up',
    });
    expect(typeof served.attributes['error.type']).toBe('string');
    expect(served.status.code).toBe(2);
    const children = childrenOf(trace, served);
    expect(
      one(children, 'switchboard.policy.decide', KIND.internal).attributes['switchboard.policy.verdict'],
    ).toBe('deny');
    expect(children.filter((s) => s.kind === KIND.client)).toEqual([]);
    expect(upstream.seen.some((c) => c.tool === 'secret')).toBe(false);
    // And a tool error is an error too, with the MCP conventions' error.type.
    const failed = one(trace, 'tools/call fails', KIND.server);
    expect(failed.attributes).toMatchObject({
      'error.type': 'tool_error',
      'switchboard.outcome': 'tool_error',
    });
  });

  it('the connect is a trace of its own, with the server’s list requests inside it', () => {
    const { spans } = runs.get(protocol)!;
    const connect = one(spans, 'switchboard.upstream.connect', KIND.internal);
    expect(connect.parentSpanId).toBe('');
    expect(connect.attributes).toMatchObject({
      'switchboard.server.name': 'up',
      'switchboard.outcome': 'ok',
    });
    const inside = childrenOf(spans, connect).map((s) => s.name);
    expect(inside).toContain('tools/list');
  });

  it('the metrics after the known load', () => {
    const { points } = runs.get(protocol)!;
    const echo = { 'gen_ai.tool.name': 'echo_meta', 'mcp.method.name': 'tools/call' };
    const served = point(points, 'mcp.server.operation.duration', echo);
    expect(served).toHaveLength(1);
    expect(served[0]!.count).toBe(1 + LOAD);
    expect(served[0]!.unit).toBe('s');
    const sent = point(points, 'mcp.client.operation.duration', { ...echo, 'switchboard.server.name': 'up' });
    expect(sent.map((p) => p.count)).toEqual([1 + LOAD]);
    // The refused call was answered, with an error, and never sent.
    const refused = point(points, 'mcp.server.operation.duration', { 'gen_ai.tool.name': 'secret' });
    expect(refused.map((p) => p.count)).toEqual([1]);
    expect(refused[0]!.attributes['error.type']).toBeDefined();
    expect(point(points, 'mcp.client.operation.duration', { 'gen_ai.tool.name': 'secret' })).toEqual([]);
    const failed = point(points, 'mcp.server.operation.duration', { 'gen_ai.tool.name': 'fails' });
    expect(failed.map((p) => p.attributes['error.type'])).toEqual(['tool_error']);
    // Nothing is in flight once all was answered.
    for (const p of point(points, 'switchboard.upstream.requests.active', {
      'switchboard.server.name': 'up',
    }))
      expect(p.value).toBe(0);
    for (const p of point(points, 'switchboard.gateway.requests.active', {})) expect(p.value).toBe(0);
    expect(
      point(points, 'switchboard.upstream.state', { 'switchboard.upstream.state': 'connected' }),
    ).toHaveLength(1);
    expect(point(points, 'switchboard.audit.queue.depth', {}).length).toBe(1);
    expect(point(points, 'nodejs.eventloop.delay.p99', {})[0]?.unit).toBe('s');
  });
});

it('the JSON and protobuf exports decode to the same span tree', () => {
  const shape = (run: Run) =>
    run.spans
      .filter((s) => s.traceId === run.caller.traceId)
      .map((s) => {
        const parent = run.spans.find((p) => p.spanId === s.parentSpanId);
        return `${parent?.name ?? '-'} > ${s.name}/${s.kind}`;
      })
      .sort();
  expect(shape(runs.get('http/protobuf')!)).toEqual(shape(runs.get('http/json')!));
});
