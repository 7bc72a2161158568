import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';
import { OTLP_PROTO } from './otlp-proto.js';

/**
 * An OTLP/HTTP receiver on 127.0.0.1 (port 0) that takes `/v1/traces` and `/v1/metrics` in
 * both encodings OTEL_EXPORTER_OTLP_PROTOCOL names for HTTP — `http/json` and
 * `http/protobuf` — and decodes each export to one plain shape: protobuf with protobufjs and
 * the OTLP message definitions (otlp-proto.ts), JSON as the OTLP/JSON mapping writes it
 * (ids as hex, 64-bit integers as strings). What the tests read is the same either way.
 */

export type AttributeValue = string | number | boolean | readonly unknown[] | undefined;

export interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly scope: string;
  readonly service: AttributeValue;
}

export interface ExportedPoint {
  readonly metric: string;
  readonly unit: string;
  readonly type: 'sum' | 'gauge' | 'histogram';
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** Sums and gauges. */
  readonly value?: number;
  /** Histograms. */
  readonly count?: number;
  readonly sum?: number;
}

export interface OtlpReceiver {
  readonly endpoint: string;
  /** Every export received, by signal and content type. */
  readonly received: { readonly path: string; readonly type: string }[];
  spans(): ExportedSpan[];
  /** The data points of the last metrics export (cumulative: the last one holds all). */
  lastMetrics(): ExportedPoint[];
  reset(): void;
  close(): Promise<void>;
}

const root = protobuf.parse(OTLP_PROTO, { keepCase: false }).root;
const TraceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('otlp.ExportMetricsServiceRequest');

type Json = Record<string, unknown>;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: { path: string; type: string }[] = [];
  let spans: ExportedSpan[] = [];
  let metrics: ExportedPoint[][] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      received.push({ path, type });
      const json = type.startsWith('application/json');
      const message = json ? (JSON.parse(body.toString('utf8')) as Json) : decode(path, body);
      if (path === '/v1/traces') spans.push(...spansOf(message));
      else if (path === '/v1/metrics') metrics.push(pointsOf(message));
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    spans: () => spans,
    lastMetrics: () => metrics.at(-1) ?? [],
    reset: () => {
      spans = [];
      metrics = [];
      received.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A protobuf export as the OTLP/JSON mapping would write it (camelCase names, bytes as hex). */
function decode(path: string, body: Buffer): Json {
  const type = path === '/v1/traces' ? TraceRequest : MetricsRequest;
  return type.toObject(type.decode(body), {
    longs: Number,
    enums: Number,
    bytes: Array,
    defaults: false,
  }) as Json;
}

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** An id as hex: JSON already has it so; protobuf decodes bytes to an array of octets. */
function hex(id: unknown): string {
  if (typeof id === 'string') return id;
  if (Array.isArray(id)) return Buffer.from(id as number[]).toString('hex');
  return '';
}

function anyValue(any: Json | undefined): AttributeValue {
  if (!any) return undefined;
  if ('stringValue' in any) return any.stringValue as string;
  if ('boolValue' in any) return any.boolValue as boolean;
  if ('intValue' in any) return Number(any.intValue);
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('arrayValue' in any) return list((any.arrayValue as Json).values).map(anyValue);
  return undefined;
}

function attributesOf(attributes: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list(attributes)) out[String(kv.key)] = anyValue(kv.value as Json | undefined);
  return out;
}

function spansOf(message: Json): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  for (const rs of list(message.resourceSpans)) {
    const service = attributesOf((rs.resource as Json | undefined)?.attributes)['service.name'];
    for (const ss of list(rs.scopeSpans)) {
      const scope = String((ss.scope as Json | undefined)?.name ?? '');
      for (const s of list(ss.spans)) {
        const status = (s.status ?? {}) as Json;
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          status: { code: Number(status.code ?? 0), message: String(status.message ?? '') },
          links: list(s.links).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          scope,
          service,
        });
      }
    }
  }
  return out;
}

function pointsOf(message: Json): ExportedPoint[] {
  const out: ExportedPoint[] = [];
  for (const rm of list(message.resourceMetrics)) {
    for (const sm of list(rm.scopeMetrics)) {
      for (const m of list(sm.metrics)) {
        const base = { metric: String(m.name), unit: String(m.unit ?? '') };
        for (const type of ['sum', 'gauge'] as const) {
          for (const p of list((m[type] as Json | undefined)?.dataPoints)) {
            const value = p.asInt !== undefined ? Number(p.asInt) : Number(p.asDouble ?? 0);
            out.push({ ...base, type, attributes: attributesOf(p.attributes), value });
          }
        }
        for (const p of list((m.histogram as Json | undefined)?.dataPoints)) {
          out.push({
            ...base,
            type: 'histogram',
            attributes: attributesOf(p.attributes),
            count: Number(p.count ?? 0),
            sum: Number(p.sum ?? 0),
          });
        }
      }
    }
  }
  return out;
}
