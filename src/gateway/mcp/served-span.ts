import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  type Link,
  SpanKind,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import { meterBound } from '../../core/telemetry/meter-bound.js';
import {
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  JSONRPC_REQUEST_ID,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MCP_RESOURCE_URI,
  MCP_SERVER_OPERATION_DURATION,
  MCP_SESSION_ID,
  NETWORK_PROTOCOL_NAME,
  NETWORK_TRANSPORT,
  OPERATION_BUCKETS_S,
  RPC_RESPONSE_STATUS_CODE,
  SWITCHBOARD_ERA,
  SWITCHBOARD_ERROR_CODE,
  SWITCHBOARD_OUTCOME,
  SWITCHBOARD_PRINCIPAL,
  SWITCHBOARD_SERVER,
  TOOL_ERROR,
} from '../../core/telemetry/semconv.js';
import { type ServedNote, withServedNote } from '../../core/telemetry/served-note.js';
import {
  eraOf,
  extractRemoteParent,
  failSpan,
  type HeaderCarrier,
  switchboardTracer,
  tracingOn,
} from '../../core/telemetry/trace-context.js';
import { answerOutcome, type Outcome, watchSseAnswer } from './served-outcome.js';

/**
 * The server side of one MCP request the gateway serves over HTTP, as the MCP conventions'
 * "Server" span and `mcp.server.operation.duration` metric describe it
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#server): a SERVER span named
 * `{mcp.method.name} {target}`, whose parent is the context in the request's `params._meta`
 * (else its W3C `traceparent` header), with the transport's own context, if any, as a link.
 * The span is the active one while the request is served, so the upstream request it makes
 * (request-span.ts in the client) becomes its child, and carries the trace on in its `_meta`.
 *
 * The operation ends with its answer: for a JSON response, when it is returned; for an SSE
 * response, when the stream carries the answer to this request's id (or ends). The outcome
 * (`error.type`: the JSON-RPC code, or `tool_error` for `isError: true`) is read from that
 * answer. With no SDK registered none of this runs: no span records, the meter is a no-op,
 * and the response passes untouched.
 */

/** What of an HTTP request the span needs. */
export interface ServedRequest {
  readonly head: HeaderCarrier;
  readonly body: unknown;
  readonly principal: string;
  /** The session's negotiated version, where a session has one. */
  readonly protocolVersion?: string | undefined;
}

const instruments = meterBound((meter) => ({
  duration: meter.createHistogram(MCP_SERVER_OPERATION_DURATION, {
    description: 'Duration of an MCP request the gateway served, until its answer was sent.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...OPERATION_BUCKETS_S] },
  }) as Histogram,
  active: meter.createUpDownCounter('switchboard.gateway.requests.active', {
    description: 'MCP requests the gateway is serving now.',
    unit: '{request}',
  }) as UpDownCounter,
}));

/** A JSON-RPC request (or notification) as far as the span reads it. */
export interface Message {
  readonly id?: unknown;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** What the span knows of the request's hop, whichever transport carried it. */
export interface ServedFacts {
  readonly principal: string;
  /** `tcp` for HTTP (Streamable HTTP, 2024-11-05 SSE), `pipe` for stdio (MCP conventions, `network.transport`). */
  readonly transport: 'tcp' | 'pipe';
  /** The HTTP request's headers: its W3C context (when `_meta` has none), session and version headers. */
  readonly head?: HeaderCarrier;
  readonly protocolVersion?: string | undefined;
  readonly sessionId?: string | undefined;
}

/** One served request's span and metric, started; `end` once with how it was answered. */
export interface ServedOperation {
  /** The context to serve in: the span active, and a note (served-note.ts) the host writes to. */
  readonly context: Context;
  /** What the host noted of the request while it was served. */
  readonly note: ServedNote;
  end(outcome: Outcome): void;
}

/** Serves `request` through `serve`, under a server span and the duration metric when telemetry is on. */
export async function servedWithSpan(
  request: ServedRequest,
  serve: () => Promise<Response>,
): Promise<Response> {
  if (!servedTelemetryOn()) return serve();
  // The message is not even looked at unless something will read what comes of it.
  const message = messageOf(request.body);
  if (message === undefined) return serve();
  const operation = startServed(message, {
    principal: request.principal,
    transport: 'tcp',
    head: request.head,
    protocolVersion: request.protocolVersion,
    sessionId: request.head.header('mcp-session-id') ?? undefined,
  });
  let response: Response;
  try {
    response = await context.with(operation.context, serve);
  } catch (error) {
    operation.end({ errorType: '_OTHER', ...(error instanceof Error && { message: error.message }) });
    throw error;
  }
  // The host already said how a tool call ended (served-note.ts): a JSON answer then need not
  // be cloned and parsed again just to read its outcome — the cost that grows with the result.
  const settled = operation.note.outcome;
  if ((settled === 'ok' || settled === 'tool_error') && response.status < 400 && isJson(response)) {
    operation.end(settled === 'ok' ? {} : { errorType: TOOL_ERROR });
    return response;
  }
  return finishWith(response, message, (outcome) => operation.end(outcome));
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('application/json');
}

/** Whether a served request would record anything: a tracer provider, or a meter that records. */
export function servedTelemetryOn(): boolean {
  return instruments().on || tracingOn();
}

/**
 * Starts the SERVER span and the duration metric of `message`: its parent the context in its
 * `_meta` (else the HTTP headers'), the ambient context a link (MCP conventions, "Context
 * propagation": the transport's context is independent of the MCP request's).
 */
export function startServed(message: Message, facts: ServedFacts): ServedOperation {
  const metered = instruments().on;
  const ambient = trace.getSpanContext(context.active());
  const parent = extractRemoteParent(
    message.params?._meta as Record<string, unknown> | undefined,
    facts.head,
  );
  const tool = message.method === 'tools/call' ? stringParam(message, 'name') : undefined;
  const prompt = message.method === 'prompts/get' ? stringParam(message, 'name') : undefined;
  const target = tool ?? prompt;
  const links: Link[] = ambient ? [{ context: ambient }] : [];
  const span = switchboardTracer().startSpan(
    target === undefined ? message.method : `${message.method} ${target}`,
    { kind: SpanKind.SERVER, links },
    parent,
  );
  const recording = span.isRecording();
  const note: ServedNote = { principal: facts.principal };
  const within = withServedNote(trace.setSpan(parent, span), note);
  if (!recording && !metered) return { context: within, note, end: () => undefined };

  const version = facts.protocolVersion ?? protocolVersionOf(message, facts.head);
  const attributes: Attributes = {
    [MCP_METHOD_NAME]: message.method,
    [NETWORK_TRANSPORT]: facts.transport,
    ...(tool !== undefined && { [GEN_AI_TOOL_NAME]: tool, [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL }),
    ...(prompt !== undefined && { [GEN_AI_PROMPT_NAME]: prompt }),
    ...(version !== undefined && { [MCP_PROTOCOL_VERSION]: version }),
  };
  if (recording) {
    span.setAttributes(attributes);
    if (facts.transport === 'tcp') span.setAttribute(NETWORK_PROTOCOL_NAME, 'http');
    span.setAttribute(SWITCHBOARD_PRINCIPAL, facts.principal);
    if (version !== undefined) span.setAttribute(SWITCHBOARD_ERA, eraOf(version));
    const id = message.id;
    if (typeof id === 'string' || typeof id === 'number') span.setAttribute(JSONRPC_REQUEST_ID, String(id));
    if (facts.sessionId !== undefined) span.setAttribute(MCP_SESSION_ID, facts.sessionId);
    const uri = stringParam(message, 'uri');
    if (uri !== undefined) span.setAttribute(MCP_RESOURCE_URI, uri);
  }
  const started = performance.now();
  const { active, duration } = instruments().instruments;
  if (metered) active.add(1, { [MCP_METHOD_NAME]: message.method });
  let ended = false;
  const end = (outcome: Outcome) => {
    if (ended) return;
    ended = true;
    if (metered) {
      active.add(-1, { [MCP_METHOD_NAME]: message.method });
      const errorType = outcome.errorType;
      duration.record(
        (performance.now() - started) / 1000,
        errorType === undefined ? attributes : { ...attributes, [ERROR_TYPE]: errorType },
      );
    }
    if (!recording) return;
    if (outcome.errorType !== undefined) failSpan(span, outcome.errorType, outcome.message);
    if (outcome.rpcCode !== undefined) span.setAttribute(RPC_RESPONSE_STATUS_CODE, String(outcome.rpcCode));
    // What the host noted of the call (served-note.ts) says more than the wire's code.
    if (note.server !== undefined) span.setAttribute(SWITCHBOARD_SERVER, note.server);
    if (note.errorCode !== undefined) span.setAttribute(SWITCHBOARD_ERROR_CODE, note.errorCode);
    span.setAttribute(
      SWITCHBOARD_OUTCOME,
      note.outcome ??
        (outcome.errorType === undefined ? 'ok' : outcome.errorType === TOOL_ERROR ? TOOL_ERROR : 'error'),
    );
    span.end();
  };
  return { context: within, note, end };
}

/** Ends the operation with the response's answer: read now (JSON), or as the stream carries it (SSE). */
async function finishWith(
  response: Response,
  message: Message,
  end: (outcome: Outcome) => void,
): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  const id = message.id;
  if (id === undefined || id === null || response.body === null) {
    // A notification (202), or an answer with no body: the HTTP status is the outcome.
    end(response.status >= 400 ? { errorType: String(response.status) } : {});
    return response;
  }
  if (type.startsWith('text/event-stream')) return watchSseAnswer(response, id, end);
  if (type.startsWith('application/json')) {
    end(
      answerOutcome(
        await response
          .clone()
          .json()
          .catch(() => undefined),
        id,
        response.status,
      ),
    );
    return response;
  }
  end(response.status >= 400 ? { errorType: String(response.status) } : {});
  return response;
}

/** The JSON-RPC request or notification `body` is, if it is one (a batch or a response is not). */
export function messageOf(body: unknown): Message | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return undefined;
  return {
    id: (body as { id?: unknown }).id,
    method,
    ...(typeof params === 'object' && params !== null && { params: params as Record<string, unknown> }),
  };
}

function stringParam(message: Message, key: string): string | undefined {
  const value = message.params?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** 2026-07-28 requests say their version in `_meta`; 2025 ones in the header, and `initialize` in its params. */
function protocolVersionOf(message: Message, head: HeaderCarrier | undefined): string | undefined {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const fromMeta = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof fromMeta === 'string') return fromMeta;
  if (message.method === 'initialize') return stringParam(message, 'protocolVersion');
  return head?.header('mcp-protocol-version') ?? undefined;
}
