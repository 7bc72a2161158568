import {
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/client';
import { SpanKind } from '@opentelemetry/api';
import { listenForAbort, stopListening } from '../core/controller-pool.js';
import { MCP_METHOD_NAME, SPAN_ROUND, SWITCHBOARD_ROUND } from '../core/telemetry/semconv.js';
import { stepSpan } from '../core/telemetry/step-span.js';
import { liftPlainToolResult, parsePlainToolResult } from './plain-tool-result.js';
import { tunnelTaskResult } from './tool-tasks.js';

/*
 * 2026-07-28 requests sent past the SDK client's request machinery, for the relays a busy
 * gateway makes thousands of times a second. The SDK's `request()` cost such a gateway ~20 µs
 * of CPU a call, 7% of its throughput (a promise, timer and listener set per request, each
 * response classified with zod before it is routed); this sends the same message and reads
 * its answer with the SDK's own pieces:
 *  - the outbound message is the SDK's (`_envelopeOutbound`: the 2026-07-28 `_meta` envelope);
 *  - the result is decoded by the SDK's era codec (`_wireCodec().decodeResult`): the same
 *    `resultType` rules, the same result-schema check, the same errors — except a plain
 *    `tools/call` result (text and media blocks), whose reading by the codec and by the result
 *    schema is known in advance and done by hand, value for value (plain-tool-result.ts):
 *    the two zod parses cost ~5 µs and ~4 KB of garbage a call;
 *  - a JSON-RPC error becomes the SDK's `ProtocolError`; a closed transport rejects with the
 *    SDK's `ConnectionClosed` error; an aborted request sends `notifications/cancelled` and
 *    rejects as the SDK's does — so the connection maps every outcome as before.
 * Those members are internal to the SDK (no public API decodes a raw result), so the lane
 * opens only when they exist; otherwise requests take the SDK's path, unchanged. Only on
 * transports without a stream per request (stdio): the SDK's HTTP transport ties a 2026-07-28
 * request to its own POST. Two ways in:
 *  - `request`: a relay's request, whose `input_required` answer goes back to the caller;
 *  - `call`: `callTool`'s, in place of `Client.callTool` (which on stdio adds only per-call
 *    lookups): a complete result is checked by the SDK's result schema, built once, and an
 *    `input_required` answer is handed to the SDK's own engine (`_resolveNonCompleteResult`),
 *    which fulfils it and sends the next rounds through its `_requestWithSchemaViaCodec`;
 *    without those two, `call` is the SDK's `request()` with that schema.
 */

/** The SDK client internals the lane uses (see above). */
interface SdkInternals {
  _envelopeOutbound(message: JSONRPCMessage): JSONRPCMessage;
  _wireCodec(): WireCodec;
  /** The SDK's own fulfilment of an `input_required` answer: its engine, its handlers, its rounds. */
  _resolveNonCompleteResult?(decoded: Decoded, flow: RequestFlow): Promise<unknown>;
  /** One round of such a flow, through the SDK's `request()`. */
  _requestWithSchemaViaCodec?(
    codec: WireCodec,
    request: { method: string; params?: Record<string, unknown> },
    schema: ResultSchema,
    options: unknown,
  ): Promise<unknown>;
}

/** What the SDK's engine is handed with an `input_required` answer (its `_requestWithSchemaViaCodec`). */
interface RequestFlow {
  readonly codec: WireCodec;
  readonly request: { readonly method: string; readonly params: Record<string, unknown> };
  readonly resultSchema: ResultSchema;
  readonly options: RequestOptionsLike;
  readonly flowStartedAt: number;
  retry(params: Record<string, unknown> | undefined, legOptions: unknown): Promise<unknown>;
}

/** The request options `Connection.run` hands the SDK: an abort signal and a timeout. */
export interface RequestOptionsLike {
  readonly signal?: AbortSignal;
  readonly timeout?: number;
}

type ResultSchema = StandardSchemaV1<unknown, Record<string, unknown>>;

interface WireCodec {
  readonly era: string;
  decodeResult(method: string, raw: unknown): Decoded;
  validateResult(
    method: string,
    raw: unknown,
  ):
    | { readonly ok: true; readonly value: unknown }
    | { readonly ok: false; readonly reason: string; readonly message?: string };
}

type Decoded =
  | {
      readonly kind: 'complete';
      readonly result: Record<string, unknown>;
      /** Read by hand (plain-tool-result.ts), not by the codec: the result schema's outcome is known. */
      readonly plain?: true;
    }
  | { readonly kind: 'invalid'; readonly error: Error }
  | {
      readonly kind: 'input_required';
      readonly inputRequests: Record<string, unknown>;
      readonly requestState?: string;
      readonly _meta?: Record<string, unknown>;
    }
  | { readonly kind: string };

interface Pending {
  readonly method: string;
  readonly resolve: (value: Decoded) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

const MODERN = '2026-07-28';

export class DirectRequests {
  private counter = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly schemas = new Map<string, ResultSchema>();

  private constructor(
    private readonly transport: Transport,
    private readonly sdk: SdkInternals,
  ) {}

  /**
   * The lane for `client` on `transport` once connected in 2026-07-28, or undefined when the
   * SDK lacks the internals it needs or the era or transport does not allow it. Wraps the
   * transport's `onmessage` and `onclose` as the SDK left them: the lane's answers never reach
   * the SDK (it would report an unknown id); everything else does, as before.
   */
  static attach(client: unknown, transport: Transport): DirectRequests | undefined {
    const sdk = client as Partial<SdkInternals>;
    if (typeof sdk._envelopeOutbound !== 'function' || typeof sdk._wireCodec !== 'function') return undefined;
    const internals = sdk as SdkInternals;
    if (internals._wireCodec().era !== MODERN) return undefined;
    if ((transport as { hasPerRequestStream?: boolean }).hasPerRequestStream === true) return undefined;
    const sdkMessage = transport.onmessage;
    const sdkClose = transport.onclose;
    if (!sdkMessage) return undefined;
    const lane = new DirectRequests(transport, internals);
    transport.onmessage = (message, extra) => {
      if (!lane.settle(message)) sdkMessage.call(transport, message, extra);
    };
    transport.onclose = () => {
      try {
        sdkClose?.call(transport);
      } finally {
        lane.closeAll();
      }
    };
    return lane;
  }

  /**
   * The result schema the SDK's `request()` uses for a spec method when given none, built once
   * instead of per request: `Client.callTool` looks it up (probing the codec by validating
   * `undefined`, a failed parse with its error formatted, on every call) and scans its
   * response cache for header mirroring and output validation, none of which applies on
   * stdio with our own output validation. Used by `call`.
   */
  resultSchema(method: string): ResultSchema {
    let schema = this.schemas.get(method);
    if (schema === undefined) {
      const codec = this.sdk._wireCodec();
      schema = {
        '~standard': {
          version: 1,
          vendor: 'mcp-wire-codec',
          validate: (value: unknown) => {
            const outcome = codec.validateResult(method, value);
            if (outcome.ok) return { value: outcome.value as Record<string, unknown> };
            const message = outcome.reason === 'invalid' ? (outcome.message ?? '') : `not-in-era: ${method}`;
            return { issues: [{ message }] };
          },
        },
      };
      this.schemas.set(method, schema);
    }
    return schema;
  }

  /**
   * Sends `method` with `params` (their `_meta` as the caller built it) and resolves with the
   * decoded result, an `input_required` answer as the SDK hands it back in manual mode (a
   * relay's request). When `signal` aborts first, the server is told and the promise rejects
   * with the abort reason.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const decoded = await this.send(method, params, signal);
    if (decoded.kind === 'complete' && 'result' in decoded) return decoded.result;
    if (decoded.kind === 'input_required' && 'inputRequests' in decoded) {
      return {
        resultType: 'input_required',
        inputRequests: decoded.inputRequests,
        ...(decoded.requestState !== undefined && { requestState: decoded.requestState }),
        ...(decoded._meta !== undefined && { _meta: decoded._meta }),
      };
    }
    throw unsupported(decoded.kind, method);
  }

  /**
   * What the SDK's `request({ method, params }, resultSchema(method), options)` answers (the
   * `callTool` path): a complete result checked by the SDK's result schema, and an
   * `input_required` answer handed to the SDK's own engine, which fulfils it with the
   * connection's handlers and sends the next rounds through its `request()`. Without those
   * internals, that very SDK call.
   */
  async call(
    client: { request(...args: unknown[]): Promise<unknown> },
    method: string,
    params: Record<string, unknown>,
    options: RequestOptionsLike,
  ): Promise<Record<string, unknown>> {
    const schema = this.resultSchema(method);
    const { _resolveNonCompleteResult: fulfil, _requestWithSchemaViaCodec: round } = this.sdk;
    if (!fulfil || !round || !options.signal) {
      return (await client.request({ method, params }, schema, options)) as Record<string, unknown>;
    }
    const flowStartedAt = Date.now();
    const decoded = await this.send(method, params, options.signal);
    if (decoded.kind === 'complete' && 'result' in decoded) {
      if ('plain' in decoded) return parsePlainToolResult(decoded.result);
      const checked = await schema['~standard'].validate(decoded.result);
      if (!checked.issues) return checked.value;
      const issues = checked.issues.map((issue) => issue.message).join(', ');
      throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${method}: ${issues}`);
    }
    const codec = this.sdk._wireCodec();
    let rounds = 0;
    const flow: RequestFlow = {
      codec,
      request: { method, params },
      resultSchema: schema,
      options,
      flowStartedAt,
      // Each further round a span of its own under the request's CLIENT span; on HTTP its
      // W3C headers name that round (trace-context.ts, withTraceHeaders).
      retry: (next, legOptions) =>
        stepSpan(
          SPAN_ROUND,
          {
            kind: SpanKind.CLIENT,
            attributes: () => ({ [MCP_METHOD_NAME]: method, [SWITCHBOARD_ROUND]: ++rounds + 1 }),
          },
          () =>
            round.call(
              this.sdk,
              codec,
              next === undefined ? { method } : { method, params: next },
              schema,
              legOptions,
            ) as Promise<unknown>,
        ),
    };
    return (await fulfil.call(this.sdk, decoded, flow)) as Record<string, unknown>;
  }

  /** Sends the request and resolves with its answer as the SDK's codec decodes it; rejects as the SDK does. */
  private send(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Decoded> {
    if (signal.aborted) return Promise.reject(abortError(signal.reason));
    const id = `switchboard-${++this.counter}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        const cancel = this.sdk._envelopeOutbound({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: String(signal.reason) },
        });
        this.transport.send(cancel).catch(() => undefined);
        reject(abortError(signal.reason));
      };
      this.pending.set(id, { method, resolve, reject, signal, onAbort });
      listenForAbort(signal, onAbort);
      const message = this.sdk._envelopeOutbound({ jsonrpc: '2.0', id, method, params });
      this.transport.send(message).catch((error: unknown) => {
        if (this.finish(id)) reject(error);
      });
    });
  }

  /** Settles the request `message` answers; false when it is no answer of this lane. */
  private settle(message: JSONRPCMessage): boolean {
    const { id } = message as { id?: unknown };
    if (typeof id !== 'string') return false;
    const waiting = this.pending.get(id);
    if (!waiting || !('result' in message || 'error' in message)) return false;
    this.finish(id);
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      waiting.reject(ProtocolError.fromError(code, text, data));
      return true;
    }
    // As the connection's transport tap does for the SDK: task results pass the codec tunnelled.
    tunnelTaskResult(message);
    // The plain tool result is read as the codec reads it, without its schema (see the top).
    const plain = waiting.method === 'tools/call' ? liftPlainToolResult(message.result) : undefined;
    if (plain) {
      waiting.resolve({ kind: 'complete', result: plain, plain: true });
      return true;
    }
    let decoded: Decoded;
    try {
      decoded = this.sdk._wireCodec().decodeResult(waiting.method, message.result);
    } catch (error) {
      waiting.reject(error instanceof Error ? error : new Error(String(error)));
      return true;
    }
    if (decoded.kind === 'invalid' && 'error' in decoded) waiting.reject(decoded.error);
    else waiting.resolve(decoded);
    return true;
  }

  /** Forgets request `id`; false when it was not pending. */
  private finish(id: string): boolean {
    const waiting = this.pending.get(id);
    if (!waiting) return false;
    this.pending.delete(id);
    stopListening(waiting.signal, waiting.onAbort);
    return true;
  }

  private closeAll(): void {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const [id, waiting] of [...this.pending]) {
      this.finish(id);
      waiting.reject(error);
    }
  }
}

/** The SDK's error for an answer of a kind it has no way to take. */
function unsupported(kind: string, method: string): SdkError {
  return new SdkError(SdkErrorCode.UnsupportedResultType, `Unsupported result type '${kind}' for ${method}`, {
    resultType: kind,
    method,
  });
}

/** How the SDK rejects an aborted request: the reason itself when it is an SdkError. */
function abortError(reason: unknown): SdkError {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}
