import {
  type Attributes,
  context,
  type Histogram,
  type Span,
  SpanKind,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import { SwitchboardError } from '../core/errors.js';
import { meterBound } from '../core/telemetry/meter-bound.js';
import {
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  MCP_CLIENT_OPERATION_DURATION,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MCP_RESOURCE_URI,
  MCP_SESSION_ID,
  METRIC_UPSTREAM_ACTIVE,
  NETWORK_PROTOCOL_NAME,
  NETWORK_TRANSPORT,
  OPERATION_BUCKETS_S,
  RPC_RESPONSE_STATUS_CODE,
  SERVER_ADDRESS,
  SERVER_PORT,
  SWITCHBOARD_ERA,
  SWITCHBOARD_ERROR_CODE,
  SWITCHBOARD_OUTCOME,
  SWITCHBOARD_PRINCIPAL,
  SWITCHBOARD_SERVER,
  TOOL_ERROR,
} from '../core/telemetry/semconv.js';
import { servedNote } from '../core/telemetry/served-note.js';
import { outcomeOfError } from '../core/telemetry/step-span.js';
import {
  eraOf,
  errorTypeOf,
  failSpan,
  injectTraceMeta,
  rpcCodeOf,
  switchboardTracer,
  tracingOn,
} from '../core/telemetry/trace-context.js';

/**
 * The client side of one upstream request, as the MCP conventions' "Client" span and
 * `mcp.client.operation.duration` metric describe it
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#client): a CLIENT span named
 * `{mcp.method.name} {target}` (target: the tool or prompt name; never a resource URI, which
 * would make names high-cardinality), its context injected into the request's `_meta` so the
 * server's span becomes its child. Without an SDK the span does not record and nothing is
 * injected: the attributes are not even built.
 */

/** What a request is about: its target, for the span name and the GenAI attributes. */
export interface RequestAbout {
  readonly tool?: string;
  readonly prompt?: string;
  readonly uri?: string;
}

/** What the connection knows of the peer when the request goes out. */
export interface UpstreamFacts {
  readonly server: string;
  readonly protocolVersion?: string | undefined;
  /** `tcp` for Streamable HTTP and SSE, `pipe` for stdio (MCP conventions, `network.transport`). */
  readonly transport: 'tcp' | 'pipe';
  readonly sessionId?: string | undefined;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
}

const instruments = meterBound((meter) => ({
  duration: meter.createHistogram(MCP_CLIENT_OPERATION_DURATION, {
    description: 'Duration of an MCP request Switchboard sent to an upstream server, until its answer.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...OPERATION_BUCKETS_S] },
  }) as Histogram,
  active: meter.createUpDownCounter(METRIC_UPSTREAM_ACTIVE, {
    description:
      'Requests Switchboard has sent to an upstream server and not yet had answered, by server and method.',
    unit: '{request}',
  }) as UpDownCounter,
}));

/** One upstream request under way: its span (recording or not) and when it started. */
export class RequestSpan {
  private readonly span: Span;
  private readonly started = performance.now();
  /** Built only when something reads them: a recording span, or a meter that records. */
  private readonly metricAttributes: Attributes | undefined;
  private readonly metered: boolean;
  /** The in-flight counter's attributes (server, method): few, so series stay few. */
  private readonly inFlight: Attributes | undefined;

  /** Whether a span or a metric would record anything; without an SDK the request goes without. */
  static wanted(): boolean {
    return instruments().on || tracingOn();
  }

  constructor(method: string, about: RequestAbout | undefined, facts: UpstreamFacts) {
    const target = about?.tool ?? about?.prompt;
    this.span = switchboardTracer().startSpan(target === undefined ? method : `${method} ${target}`, {
      kind: SpanKind.CLIENT,
    });
    this.metered = instruments().on;
    if (!this.metered && !this.span.isRecording()) return;
    this.metricAttributes = {
      [MCP_METHOD_NAME]: method,
      [SWITCHBOARD_SERVER]: facts.server,
      [NETWORK_TRANSPORT]: facts.transport,
      ...(about?.tool !== undefined && {
        [GEN_AI_TOOL_NAME]: about.tool,
        [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL,
      }),
      ...(about?.prompt !== undefined && { [GEN_AI_PROMPT_NAME]: about.prompt }),
      ...(facts.protocolVersion !== undefined && { [MCP_PROTOCOL_VERSION]: facts.protocolVersion }),
    };
    if (this.metered) {
      this.inFlight = { [SWITCHBOARD_SERVER]: facts.server, [MCP_METHOD_NAME]: method };
      instruments().instruments.active.add(1, this.inFlight);
    }
    if (!this.span.isRecording()) return;
    this.span.setAttributes(this.metricAttributes);
    if (facts.protocolVersion !== undefined)
      this.span.setAttribute(SWITCHBOARD_ERA, eraOf(facts.protocolVersion));
    // The principal of the gateway request this one serves, if any (served-note.ts).
    const principal = servedNote()?.principal;
    if (principal !== undefined) this.span.setAttribute(SWITCHBOARD_PRINCIPAL, principal);
    if (about?.uri !== undefined) this.span.setAttribute(MCP_RESOURCE_URI, about.uri);
    if (facts.sessionId !== undefined) this.span.setAttribute(MCP_SESSION_ID, facts.sessionId);
    if (facts.transport === 'tcp') this.span.setAttribute(NETWORK_PROTOCOL_NAME, 'http');
    if (facts.address !== undefined) this.span.setAttribute(SERVER_ADDRESS, facts.address);
    if (facts.port !== undefined) this.span.setAttribute(SERVER_PORT, facts.port);
  }

  /** Carries this span's context into the request's `_meta` (a no-op without an SDK). */
  inject(meta: Record<string, unknown>): void {
    if (this.span.isRecording()) injectTraceMeta(meta, trace.setSpan(context.active(), this.span));
  }

  /** Runs `fn` with this span as the active one, so what it starts (a reconnect, an HTTP request) nests under it. */
  within<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.span.isRecording()) return fn();
    return context.with(trace.setSpan(context.active(), this.span), fn);
  }

  /** The request answered; a tool result with `isError` counts as `tool_error`. */
  succeeded(result: unknown): void {
    const isError =
      typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
    this.end(isError ? TOOL_ERROR : undefined);
  }

  failed(error: unknown): void {
    const rpc = rpcCodeOf(error);
    this.end(errorTypeOf(error), error instanceof Error ? error.message : undefined, rpc, error);
  }

  private end(errorType?: string, message?: string, rpcCode?: number, error?: unknown): void {
    const seconds = (performance.now() - this.started) / 1000;
    if (this.metered) {
      const attributes =
        errorType === undefined
          ? this.metricAttributes
          : { ...this.metricAttributes, [ERROR_TYPE]: errorType };
      const { duration, active } = instruments().instruments;
      duration.record(seconds, attributes);
      if (this.inFlight) active.add(-1, this.inFlight);
    }
    if (!this.span.isRecording()) return;
    if (errorType !== undefined) failSpan(this.span, errorType, message);
    this.span.setAttribute(
      SWITCHBOARD_OUTCOME,
      error !== undefined ? outcomeOfError(error) : errorType === TOOL_ERROR ? TOOL_ERROR : 'ok',
    );
    if (error instanceof SwitchboardError) this.span.setAttribute(SWITCHBOARD_ERROR_CODE, error.code);
    if (rpcCode !== undefined) this.span.setAttribute(RPC_RESPONSE_STATUS_CODE, String(rpcCode));
    this.span.end();
  }
}
