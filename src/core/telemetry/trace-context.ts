import {
  type Context,
  context,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { SwitchboardError } from '../errors.js';
import { ERROR_TYPE, ERROR_TYPE_OTHER, INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from './semconv.js';

/**
 * Trace context for MCP messages. Everything here goes through `@opentelemetry/api` alone, so
 * it costs next to nothing until an app registers an SDK: the global tracer is a no-op whose
 * spans do not record, and the global propagator injects nothing.
 *
 * MCP conventions, "Context propagation": instrumentations SHOULD inject the context with the
 * configured propagators into the request's `params._meta`, unprefixed (`traceparent`,
 * `tracestate`, `baggage`; SEP-414), and the receiver SHOULD use the context extracted from
 * there as the parent of its server span.
 */

/** The tracer of every Switchboard span (a proxy: it follows the provider an app registers later). */
export function switchboardTracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
}

/** The API's no-op provider: what a fresh proxy delegates to before any SDK is registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether an SDK's tracer provider is registered. The hot paths ask first and skip span work
 * altogether without one (a non-recording span still costs a context extraction and a span object).
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/** The keys the W3C propagators write, which a relayed `_meta` must not carry past us. */
export const TRACE_META_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** Writes `ctx`'s trace context (W3C `traceparent`/`tracestate`, baggage) into a request's `_meta`. */
export function injectTraceMeta(meta: Record<string, unknown>, ctx: Context = context.active()): void {
  propagation.inject(ctx, meta);
}

/** `meta` without the trace context keys (a relayed `_meta` carries the caller's, which is not ours to pass on). */
export function withoutTraceMeta(meta: unknown): Record<string, unknown> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const record = meta as Record<string, unknown>;
  if (!TRACE_META_KEYS.some((key) => key in record)) return record;
  const { traceparent: _p, tracestate: _s, baggage: _b, ...rest } = record;
  return rest;
}

/** The trace context keys of `meta` alone (what `injectTraceMeta` wrote there). */
export function traceMetaOf(meta: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of TRACE_META_KEYS) if (meta[key] !== undefined) picked[key] = meta[key];
  return picked;
}

/** Only string values count: `_meta` is caller data, and a propagator expects header-like text. */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** What an HTTP request's headers look like to the propagator (header names are case-insensitive). */
export interface HeaderCarrier {
  header(name: string): string | null;
}

const headerGetter: TextMapGetter<HeaderCarrier> = {
  keys: () => [...TRACE_META_KEYS],
  get: (carrier, key) => carrier.header(key) ?? undefined,
};

/**
 * The remote parent of a served request: the context in its `params._meta` when that has a
 * valid one (the MCP conventions' choice: one HTTP request may carry several MCP messages, and
 * one MCP request may be retried over several HTTP requests), else the HTTP request's own W3C
 * headers, else none.
 */
export function extractRemoteParent(
  meta: Record<string, unknown> | undefined,
  headers: HeaderCarrier | undefined,
): Context {
  if (meta !== undefined) {
    const fromMeta = propagation.extract(ROOT_CONTEXT, meta, metaGetter);
    if (trace.getSpanContext(fromMeta) !== undefined) return fromMeta;
  }
  if (headers !== undefined) return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return ROOT_CONTEXT;
}

/**
 * `init` with the active context's W3C `traceparent`/`tracestate` (and `baggage`) headers
 * added, for an HTTP request to an upstream server. The MCP conventions carry the context in
 * `_meta` (which we do too, request-span.ts); the headers are for what sits on the HTTP hop
 * and knows no MCP — a proxy, a load balancer, the upstream's own HTTP instrumentation
 * (W3C Trace Context, "traceparent Header"). Untouched without a tracer provider or an
 * active span.
 */
export function withTraceHeaders(init: RequestInit | undefined): RequestInit | undefined {
  if (!tracingOn()) return init;
  const active = context.active();
  if (trace.getSpanContext(active) === undefined) return init;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  const keys = Object.keys(carrier);
  if (keys.length === 0) return init;
  const headers = new Headers(init?.headers);
  for (const key of keys) headers.set(key, carrier[key]!);
  return { ...init, headers };
}

/** The era of a protocol version (`switchboard.mcp.era`): `modern` from 2026-07-28 on, else `legacy`. */
export function eraOf(version: string): 'modern' | 'legacy' {
  return version >= '2026' ? 'modern' : 'legacy';
}

/** The JSON-RPC error code a failure carries (from the peer, or the one we answer with), if any. */
export function rpcCodeOf(error: unknown): number | undefined {
  if (error instanceof SwitchboardError) {
    const rpc = error.details.rpcCode;
    return typeof rpc === 'number' ? rpc : undefined;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

/**
 * The `error.type` of a failure (error registry; MCP conventions, note on `error.type`): the
 * JSON-RPC code as a string where the failure carries one, else our `SwitchboardError` code,
 * else `_OTHER`.
 */
export function errorTypeOf(error: unknown): string {
  const rpc = rpcCodeOf(error);
  if (rpc !== undefined) return String(rpc);
  return error instanceof SwitchboardError ? error.code : ERROR_TYPE_OTHER;
}

/**
 * Marks a span failed as "Recording Errors" asks: `error.type` set, status ERROR with the
 * error's message as its description. No exception event: the message is all a reader needs,
 * and a stack would carry paths.
 */
export function failSpan(span: Span, errorType: string, message?: string): void {
  span.setAttribute(ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
}
