import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../../src/app/telemetry.js';
import { switchboardTracer } from '../../src/core/telemetry/trace-context.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

/**
 * The app's SDK exports by OTLP/HTTP to a real receiver on 127.0.0.1, in both encodings the
 * spec's OTEL_EXPORTER_OTLP_PROTOCOL names for HTTP: http/json and http/protobuf (decoded by
 * the receiver with the OTLP message definitions). The default sampler keeps what a sampled
 * caller started and one in ten of the traces that start here.
 */
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe('OTLP/HTTP export', () => {
  for (const protocol of ['http/json', 'http/protobuf'] as const) {
    it(`sends spans as ${protocol} to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, with the service name`, async () => {
      receiver.reset();
      const telemetry = await startTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_SERVICE_NAME: 'otlp-test-service',
        OTEL_TRACES_SAMPLER: 'always_on',
      });
      expect(telemetry).toBeDefined();
      const span = switchboardTracer().startSpan('tools/call probe_tool', { kind: SpanKind.SERVER });
      span.setAttribute('mcp.method.name', 'tools/call');
      span.end();
      await telemetry!.shutdown(); // flushes the batch
      expect(receiver.received.map((r) => [r.path, r.type.split(';')[0]])).toEqual([
        ['/v1/traces', protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'],
      ]);
      const [sent] = receiver.spans();
      expect(sent).toMatchObject({
        name: 'tools/call probe_tool',
        kind: 2, // SPAN_KIND_SERVER
        scope: 'mcp-switchboard',
        service: 'otlp-test-service',
        attributes: { 'mcp.method.name': 'tools/call' },
        parentSpanId: '',
      });
      expect(sent!.traceId).toMatch(/^[0-9a-f]{32}$/);
    });
  }

  it('the default sampler keeps about one root trace in ten, and every child of a sampled caller', async () => {
    receiver.reset();
    const telemetry = (await startTelemetry({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_METRICS_EXPORTER: 'none',
    }))!;
    const ROOTS = 2000;
    for (let i = 0; i < ROOTS; i++) switchboardTracer().startSpan('root').end();
    await telemetry.shutdown();
    const kept = receiver.spans().length;
    // Binomial(2000, 0.1): mean 200, sd 13.4; ±6 sd is far outside chance.
    expect(kept).toBeGreaterThan(120);
    expect(kept).toBeLessThan(280);
  });

  it('with nothing configured starts nothing', async () => {
    expect(await startTelemetry({})).toBeUndefined();
  });
});
