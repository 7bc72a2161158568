import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpHttpHandler, Server } from '@modelcontextprotocol/server';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from '../../src/app/telemetry.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import {
  abortOnClientGone,
  readNodeBody,
  toWebRequest,
  writeWebResponse,
} from '../fixtures/node-http-adapter.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { callRaw, modernClient, quietLog, type Raw } from './modern-client.js';
import { type PromSample, parsePrometheusText } from './prometheus-text.js';

/**
 * Traces and metrics across the hop, with the real OpenTelemetry SDK: a client span of this
 * test → the gateway's SERVER span (parent from `_meta.traceparent`) → the host's CLIENT span
 * to a real HTTP upstream on 127.0.0.1, whose request carries that span in its `_meta`. Spans
 * land in an in-memory exporter; metrics are read as the gateway serves them, Prometheus text
 * at GET /metrics, parsed.
 */
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
/** What `_meta` each upstream `tools/call` arrived with. */
const upstreamMetas: Raw[] = [];
let upstream: { url: string; close(): Promise<void> };
let telemetry: Telemetry;
let host: Host;
let gateway: HttpGateway;
let dataDir: string;

beforeAll(async () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  // The app's own metrics path (Prometheus reader), OTLP off: what `switchboard serve` runs.
  telemetry = (await startTelemetry({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_TRACES_EXPORTER: 'none' }))!;
  upstream = await startUpstream();
  dataDir = await mkdtemp(join(tmpdir(), 'sb-telemetry-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'up', url: upstream.url })],
  });
  await catalogHas(host, 'mcp__up__echo_meta');
  gateway = await startHttpGateway(
    host,
    resolveGateway({ port: 0, names: 'passthrough-unique', consent: 'off' }),
    { log: quietLog, metricsText: telemetry.metricsText! },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await host?.close();
  await upstream?.close();
  await telemetry?.shutdown();
  await tracerProvider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const tracer = () => trace.getTracer('telemetry-test');

/** Runs `fn` under a fresh client span of the test; returns its span context and the traceparent it sends. */
async function asCaller<T>(fn: (meta: Raw) => Promise<T>) {
  const span = tracer().startSpan('test caller', { kind: SpanKind.INTERNAL });
  const meta: Raw = {};
  propagation.inject(trace.setSpan(context.active(), span), meta);
  try {
    return { result: await fn(meta), caller: span.spanContext() };
  } finally {
    span.end();
  }
}

const spansOf = (traceId: string) =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
const named = (spans: ReadableSpan[], name: string, kind: SpanKind) => {
  const found = spans.filter((s) => s.name === name && s.kind === kind);
  expect(found, `${name} (${SpanKind[kind]}) in ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
};
async function waitForSpans(traceId: string, count: number): Promise<ReadableSpan[]> {
  // Waited on by name, so a timeout says which spans the trace did have.
  await eventually(
    () => spansOf(traceId).map((s) => `${SpanKind[s.kind]} ${s.name}`),
    (names) => names.length >= count,
    { what: `${count} spans of trace ${traceId}`, timeoutMs: 10_000 },
  );
  return spansOf(traceId);
}

describe('traces across the hop', () => {
  it('one trace runs caller → gateway SERVER span → upstream CLIENT span → upstream, modern era', async () => {
    const client = await modernClient(gateway.url, {});
    try {
      const { result, caller } = await asCaller((meta) => callRaw(client, 'echo_meta', { _meta: meta }));
      expect((result.content as { text: string }[])[0]?.text).toBe('ok');
      const spans = await waitForSpans(caller.traceId, 2);
      const served = named(spans, 'tools/call echo_meta', SpanKind.SERVER);
      const sent = named(spans, 'tools/call echo_meta', SpanKind.CLIENT);
      // Parent links: the caller's span → the gateway's → the upstream request.
      expect(served.parentSpanContext?.spanId).toBe(caller.spanId);
      expect(sent.parentSpanContext?.spanId).toBe(served.spanContext().spanId);
      expect(served.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo_meta',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
        'switchboard.mcp.era': 'modern',
        'switchboard.principal.id': expect.any(String),
      });
      expect(served.attributes['error.type']).toBeUndefined();
      expect(sent.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo_meta',
        'switchboard.server.name': 'up',
        'network.transport': 'tcp',
      });
      // The upstream request carried the gateway's CLIENT span on, not the caller's context.
      const seen = upstreamMetas.at(-1)!;
      expect(seen.traceparent).toBe(`00-${caller.traceId}-${sent.spanContext().spanId}-01`);
    } finally {
      await client.close();
    }
  });

  it('a 2025-11-25 session call is traced the same way, with its session id', async () => {
    const client = new Client({ name: 'legacy-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url));
    await client.connect(transport);
    try {
      const { caller } = await asCaller((meta) =>
        client.callTool({ name: 'echo_meta', arguments: {}, _meta: meta }),
      );
      const spans = await waitForSpans(caller.traceId, 2);
      const served = named(spans, 'tools/call echo_meta', SpanKind.SERVER);
      const sent = named(spans, 'tools/call echo_meta', SpanKind.CLIENT);
      expect(served.parentSpanContext?.spanId).toBe(caller.spanId);
      expect(sent.parentSpanContext?.spanId).toBe(served.spanContext().spanId);
      expect(served.attributes['mcp.session.id']).toBe(transport.sessionId);
      expect(served.attributes['switchboard.mcp.era']).toBe('legacy');
    } finally {
      await client.close();
    }
  });

  it('an incoming W3C traceparent header is the parent when _meta has none', async () => {
    const client = await modernClient(gateway.url, {});
    await client.close();
    const span = tracer().startSpan('header caller');
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), headers);
    span.end();
    const caller = span.spanContext();
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo_meta',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'echo_meta',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const spans = await waitForSpans(caller.traceId, 2);
    const served = named(spans, 'tools/call echo_meta', SpanKind.SERVER);
    expect(served.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(served.attributes['jsonrpc.request.id']).toBe('7');
  });

  it('a tool error and a refused call are outcomes: tool_error, and the JSON-RPC code', async () => {
    const client = await modernClient(gateway.url, {});
    try {
      const failed = await asCaller((meta) => callRaw(client, 'fails', { _meta: meta }));
      expect(failed.result.isError).toBe(true);
      const spans = await waitForSpans(failed.caller.traceId, 2);
      for (const kind of [SpanKind.SERVER, SpanKind.CLIENT]) {
        const span = named(spans, 'tools/call fails', kind);
        expect(span.attributes['error.type']).toBe('tool_error');
        expect(span.status.code).toBe(SpanStatusCode.ERROR);
      }
      const unknown = await asCaller((meta) =>
        callRaw(client, 'no_such_tool', { _meta: meta }).then(
          () => undefined,
          (error: { code?: number }) => error.code,
        ),
      );
      expect(typeof unknown.result).toBe('number');
      const [refused] = await waitForSpans(unknown.caller.traceId, 1);
      expect(refused!.name).toBe('tools/call no_such_tool');
      expect(refused!.attributes['error.type']).toBe(String(unknown.result));
      expect(refused!.attributes['rpc.response.status_code']).toBe(String(unknown.result));
      // Refused at the gateway: no request went upstream.
      expect(spansOf(unknown.caller.traceId).filter((s) => s.kind === SpanKind.CLIENT)).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});

describe('GET /metrics', () => {
  it('is behind the gateway auth (the local token, without configured auth)', async () => {
    const response = await fetch(new URL('/metrics', gateway.url));
    expect(response.status).toBe(401);
    await response.text();
  });

  it('serves Prometheus text whose counts follow a known load', async () => {
    const before = await scrape();
    const client = await modernClient(gateway.url, {});
    const calls = 5;
    try {
      for (let i = 0; i < calls; i++) await callRaw(client, 'echo_meta');
      await callRaw(client, 'fails');
    } finally {
      await client.close();
    }
    const after = await scrape();
    const served = (samples: PromSample[], tool: string, errorType?: string) =>
      sum(samples, 'mcp_server_operation_duration_count', {
        mcp_method_name: 'tools/call',
        gen_ai_tool_name: tool,
        ...(errorType !== undefined && { error_type: errorType }),
      });
    expect(served(after, 'echo_meta') - served(before, 'echo_meta')).toBe(calls);
    expect(served(after, 'fails', 'tool_error') - served(before, 'fails', 'tool_error')).toBe(1);
    const sent = (samples: PromSample[]) =>
      sum(samples, 'mcp_client_operation_duration_count', {
        mcp_method_name: 'tools/call',
        gen_ai_tool_name: 'echo_meta',
        switchboard_server_name: 'up',
      });
    expect(sent(after) - sent(before)).toBe(calls);
    // Histogram buckets are cumulative and end at +Inf = _count.
    const inf = sum(after, 'mcp_server_operation_duration_bucket', {
      gen_ai_tool_name: 'echo_meta',
      le: '+Inf',
    });
    expect(inf).toBe(served(after, 'echo_meta'));
    expect(
      sum(after, 'switchboard_upstream_state', {
        switchboard_server_name: 'up',
        switchboard_upstream_state: 'connected',
      }),
    ).toBe(1);
    expect(after.some((s) => s.name === 'switchboard_gateway_sessions')).toBe(true);
    expect(after.some((s) => s.name === 'nodejs_eventloop_delay_p99')).toBe(true);
  });
});

async function scrape(): Promise<PromSample[]> {
  const response = await fetch(new URL('/metrics', gateway.url), {
    headers: { authorization: `Bearer ${gateway.localToken}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

function sum(samples: PromSample[], name: string, labels: Record<string, string>): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** A real MCP server over HTTP on 127.0.0.1 (both eras, stateless): `echo_meta` records the `_meta` it got. */
async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const build = () => {
    const server = new Server(
      { name: 'telemetry-upstream', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler('tools/list', () => ({
      tools: [
        { name: 'echo_meta', inputSchema: { type: 'object' as const } },
        { name: 'fails', inputSchema: { type: 'object' as const } },
      ],
    }));
    server.setRequestHandler('tools/call', (request) => {
      if (request.params.name === 'fails') return { content: [{ type: 'text', text: 'no' }], isError: true };
      upstreamMetas.push({ ...(request.params._meta ?? {}) });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    return server;
  };
  const handler: McpHttpHandler = createMcpHandler(build, { legacy: 'stateless' });
  const server: NodeServer = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readNodeBody(req, 1024 * 1024) : undefined;
      if (body === 'too-large') return res.writeHead(413).end();
      const parsedBody = body && body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
      const request = toWebRequest(req, body, abortOnClientGone(res).signal);
      await writeWebResponse(
        res,
        await handler.fetch(request, parsedBody === undefined ? {} : { parsedBody }),
      );
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
