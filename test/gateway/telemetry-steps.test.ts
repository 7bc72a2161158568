import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { rateLimit } from '../../src/gateway/http/middleware/rate-limit.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import { serveGatewayStdio } from '../../src/gateway/stdio/serve-stdio.js';
import { Host } from '../../src/host/host.js';
import { startTracedUpstream, type TracedUpstream } from '../fixtures/traced-upstream.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { quietLog, type Raw } from './modern-client.js';

/**
 * The spans and counters beyond the HTTP request/response pair, with the real SDK in memory:
 * a SERVER span per request on the stdio gateway and on a 2024-11-05 SSE session (where the
 * answer leaves on another stream than the request came in), the approval wait as a child of
 * the call with the approvals-waiting gauge up while it waits, and the rate-limit counter.
 */
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
class PullReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}
const reader = new PullReader();
const meterProvider = new MeterProvider({ readers: [reader] });
let upstream: TracedUpstream;
let host: Host;
let gateway: HttpGateway;
let dataDir: string;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  upstream = await startTracedUpstream();
  dataDir = await mkdtemp(join(tmpdir(), 'sb-telemetry-steps-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'up', url: upstream.url })],
  });
  await catalogHas(host, 'mcp__up__echo_meta');
  gateway = await startHttpGateway(
    host,
    resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off', legacySse: true }),
    { log: quietLog },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await host?.close();
  await upstream?.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A caller's span and the `_meta` carrying it. */
function caller() {
  const span = trace.getTracer('steps-test').startSpan('caller', { kind: SpanKind.CLIENT });
  const meta: Raw = {};
  propagation.inject(trace.setSpan(context.active(), span), meta);
  span.end();
  return { meta, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
}

async function spansOf(traceId: string, want: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  return eventually(
    () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId),
    want,
    { what: `the spans of trace ${traceId}`, timeoutMs: 15_000 },
  );
}

const approve = async () => ({ approved: true as const, always: false });

describe('SERVER spans where answers travel apart from requests', () => {
  it('the stdio gateway: one SERVER span per request, pipe transport, parent from _meta, the upstream CLIENT span under it', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const settings = resolveGateway({ names: 'passthrough-unique', consent: 'off' });
    const stdio = serveGatewayStdio(host, {
      input,
      output,
      naming: settings.names,
      expose: settings.expose,
      consent: settings.consent,
      limits: settings.limits,
      idempotency: new IdempotencyCache(settings.idempotencyTtlMs),
    });
    const lines: Raw[] = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let cut = buffered.indexOf('\n'); cut >= 0; cut = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, cut)) as Raw);
        buffered = buffered.slice(cut + 1);
      }
    });
    const send = (message: Raw) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    try {
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'stdio-test', version: '1' },
        },
      });
      await eventually(() => lines.find((l) => l.id === 1), Boolean, { what: 'the initialize answer' });
      send({ method: 'notifications/initialized' });
      const { meta, traceId, spanId } = caller();
      send({ id: 2, method: 'tools/call', params: { name: 'echo_meta', arguments: {}, _meta: meta } });
      const answer = await eventually(() => lines.find((l) => l.id === 2), Boolean, {
        what: 'the call answer',
      });
      expect(JSON.stringify(answer)).toContain('"ok"');
      const spans = await spansOf(traceId, (s) => s.some((x) => x.kind === SpanKind.SERVER));
      const served = spans.find((s) => s.kind === SpanKind.SERVER)!;
      expect(served.name).toBe('tools/call echo_meta');
      expect(served.parentSpanContext?.spanId).toBe(spanId);
      expect(served.attributes).toMatchObject({
        'network.transport': 'pipe',
        'mcp.protocol.version': '2025-11-25',
        'switchboard.mcp.era': 'legacy',
        'switchboard.principal.id': 'local',
        'switchboard.server.name': 'up',
        'switchboard.outcome': 'ok',
      });
      const sent = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo_meta');
      expect(sent?.parentSpanContext?.spanId).toBe(served.spanContext().spanId);
    } finally {
      input.end();
      await stdio.close();
    }
  });

  it('a 2024-11-05 SSE session: the POST is acknowledged at once, the span ends when the answer goes on the stream', async () => {
    const client = new ClientV1({ name: 'v1-sse', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(`${gateway.url}/sse`)));
    try {
      const { meta, traceId, spanId } = caller();
      const result = await client.callTool({ name: 'echo_meta', arguments: {}, _meta: meta });
      expect((result.content as { text: string }[])[0]!.text).toBe('ok');
      const spans = await spansOf(traceId, (s) =>
        s.some((x) => x.kind === SpanKind.CLIENT && x.name !== 'caller'),
      );
      const served = spans.find((s) => s.kind === SpanKind.SERVER)!;
      expect(served.parentSpanContext?.spanId).toBe(spanId);
      expect(served.attributes).toMatchObject({
        'network.transport': 'tcp',
        'switchboard.server.name': 'up',
        'switchboard.outcome': 'ok',
      });
      expect(typeof served.attributes['mcp.session.id']).toBe('string');
      const sent = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo_meta')!;
      expect(sent.parentSpanContext?.spanId).toBe(served.spanContext().spanId);
      // The SERVER span covers the upstream call: it ended after it.
      const end = (s: ReadableSpan) => s.endTime[0] * 1e9 + s.endTime[1];
      expect(end(served)).toBeGreaterThanOrEqual(end(sent));
    } finally {
      await client.close();
    }
  });
});

describe('approval waits', () => {
  it('a span under the call while a person decides, and the approvals-waiting gauge up meanwhile', async () => {
    const parent = trace.getTracer('steps-test').startSpan('agent turn');
    // A session whose mode asks before a tool that is not read-only.
    host.governor.setMode('asks', 'auto-edit');
    let release!: () => void;
    const decided = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waitingNow = async () => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'switchboard.approvals.waiting');
      return metric?.dataPoints.reduce((sum, p) => sum + Number(p.value), 0) ?? 0;
    };
    const call = context.with(trace.setSpan(context.active(), parent), () =>
      host.callTool(
        'mcp__up__fails',
        {},
        {
          session: 'asks',
          askApproval: async () => {
            await decided;
            return approve();
          },
        },
      ),
    );
    await eventually(waitingNow, (n) => n === 1, { what: 'one approval waiting' });
    release();
    await call;
    parent.end();
    expect(await waitingNow()).toBe(0);
    const spans = await spansOf(parent.spanContext().traceId, (s) =>
      s.some((x) => x.name === 'switchboard.approval.wait'),
    );
    const wait = spans.find((s) => s.name === 'switchboard.approval.wait')!;
    expect(wait.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(wait.attributes).toMatchObject({
      'switchboard.answer': 'once',
      'switchboard.server.name': 'up',
      'gen_ai.tool.name': 'fails',
    });
    const policy = spans.find((s) => s.name === 'switchboard.policy.decide')!;
    expect(policy.attributes['switchboard.policy.verdict']).toBe('ask');
  });
});

describe('counters', () => {
  it('a request refused by a rate limit is counted, by which limit', async () => {
    const limit = rateLimit({ by: 'ip', burst: 1, perSecond: 0.001 });
    const ctx = { remoteAddress: '127.0.0.9', head: {} } as never;
    await limit(ctx, async () => new Response('ok'));
    expect(() => limit(ctx, async () => new Response('ok'))).toThrow(/Too many requests/);
    const { resourceMetrics } = await reader.collect();
    const counted = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'switchboard.gateway.rate_limited');
    expect(counted?.dataPoints.map((p) => [p.attributes['switchboard.rate_limit.by'], p.value])).toEqual([
      ['ip', 1],
    ]);
  });
});
