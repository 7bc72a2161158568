import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../../src/app/telemetry.js';
import { switchboardTracer } from '../../src/core/telemetry/trace-context.js';

/**
 * The app's SDK exports by OTLP/HTTP to a real receiver on 127.0.0.1, in both encodings the
 * spec's OTEL_EXPORTER_OTLP_PROTOCOL names for HTTP: http/json and http/protobuf.
 */
interface Export {
  readonly path: string;
  readonly type: string;
  readonly body: Buffer;
}
const exports: Export[] = [];
let endpoint: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        type: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      res
        .writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' })
        .end(req.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await close?.();
});

describe('OTLP/HTTP export', () => {
  for (const protocol of ['http/json', 'http/protobuf'] as const) {
    it(`sends spans as ${protocol} to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, with the service name`, async () => {
      exports.length = 0;
      const telemetry = await startTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_SERVICE_NAME: 'otlp-test-service',
      });
      expect(telemetry).toBeDefined();
      const span = switchboardTracer().startSpan('tools/call probe_tool', { kind: SpanKind.SERVER });
      span.setAttribute('mcp.method.name', 'tools/call');
      span.end();
      await telemetry!.shutdown(); // flushes the batch
      const traces = exports.filter((e) => e.path === '/v1/traces');
      expect(traces).toHaveLength(1);
      const sent = traces[0]!;
      if (protocol === 'http/json') {
        expect(sent.type).toMatch(/^application\/json/);
        const body = JSON.parse(sent.body.toString('utf8')) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { scope: { name: string }; spans: { name: string; kind: number }[] }[];
          }[];
        };
        const resource = body.resourceSpans[0]!;
        expect(resource.resource.attributes).toContainEqual({
          key: 'service.name',
          value: { stringValue: 'otlp-test-service' },
        });
        expect(resource.scopeSpans[0]!.scope.name).toBe('mcp-switchboard');
        expect(resource.scopeSpans[0]!.spans.map((s) => s.name)).toEqual(['tools/call probe_tool']);
        expect(resource.scopeSpans[0]!.spans[0]!.kind).toBe(2); // SPAN_KIND_SERVER
      } else {
        expect(sent.type).toBe('application/x-protobuf');
        // Protobuf strings are UTF-8 bytes in the message: the names are there as written.
        expect(sent.body.includes(Buffer.from('tools/call probe_tool'))).toBe(true);
        expect(sent.body.includes(Buffer.from('otlp-test-service'))).toBe(true);
      }
    });
  }

  it('with nothing configured starts nothing', async () => {
    expect(await startTelemetry({})).toBeUndefined();
  });
});
