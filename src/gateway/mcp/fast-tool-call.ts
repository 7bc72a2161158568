import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { RelayAnswer } from '../../client/relay.js';
import { BoundedMemo } from '../../core/bounded-memo.js';
import { isSwitchboardError } from '../../core/errors.js';
import { isModelVisible } from '../../core/mcp-apps.js';
import { MANAGEMENT_SERVER } from '../../host/management/management-tools.js';
import type { RequestHead } from '../http/context.js';
import { declaresTasks, taskAfterMs } from '../tasks/task-policy.js';
import { consentWouldAsk } from './consent-gate.js';
import type { GatewayServerOptions } from './gateway-server.js';
import { checkInputCaps } from './input-caps.js';
import type { GatewayPrincipal } from './served-catalog.js';
import { servedTools } from './served-catalog.js';
import type { SettledCall } from './settled-call.js';
import { startState } from './startup-wait.js';
import { unservedTool } from './unserved.js';
import { errorResult, toProtocolError } from './upstream-calls.js';
import {
  encodeToolResult,
  jsonRpcErrorResult,
  jsonRpcResultResponse,
  plainToolResult,
} from './wire-result.js';

/*
 * The fast path for the gateway's most frequent request: a 2026-07-28 `tools/call` of a tool
 * on a 2026-07-28 upstream. The full path builds one SDK server per request (every handler
 * registered, the request and result validated by the SDK, a per-request transport), which
 * costs more than the call itself; the SDK offers no way to serve one method without that
 * instance. This answers such a call directly — but only where that is exactly what the full
 * path would do, step for step (gateway-server.ts, upstream-calls.ts), and leaves everything
 * else to it, untouched:
 *
 * - Taken only for a single JSON-RPC request, method `tools/call`, that the SDK's own
 *   classifier (`classifyInboundRequest`) routes to 2026-07-28, with the standard headers in
 *   their plain valid form (`MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call`,
 *   `Mcp-Name` equal to the tool's name), a JSON content type, and params of `name`,
 *   `arguments` and an `_meta` holding only the envelope's protocol version, client info and
 *   capabilities — so no progress token, log level, idempotency key, `requestState` or
 *   `inputResponses`: nothing that would make the SDK stream, relay a round or deduplicate.
 * - Taken only for a served tool (the same `servedTools`: expose globs, allow-lists, naming)
 *   of a connected 2026-07-28 upstream (its rounds and tasks are relayed answers, handled
 *   below; a 2025-era upstream's mid-call requests are parked by the full path instead), not a
 *   management tool, and only when the consent gate would not ask (`consentWouldAsk`, a
 *   decision without side effects) — a call the gate would ask about goes to the full path
 *   before any upstream work.
 * - Unknown tools and input caps are answered with the full path's errors; the call goes
 *   through the host's governed path (policy, approval, audit under the principal) with the
 *   request's signal, so a client that goes away cancels it upstream.
 * - The answer is written here only when it is a result the SDK's validation would not change
 *   (wire-result.ts) or an error it answers with status 200; anything else — a task, the next
 *   round, any other result — is settled: handed to the full path, whose handler answers with
 *   it (settled-call.ts) instead of calling again. The upstream is never called twice.
 */

/** What the fast path serves with: the gateway's settings that decide what a principal may call. */
export interface FastToolCallOptions {
  readonly host: GatewayServerOptions['host'];
  readonly naming: GatewayServerOptions['naming'];
  readonly exposeTools: readonly string[];
  readonly consent: GatewayServerOptions['consent'];
  readonly limits: GatewayServerOptions['limits'];
  readonly management: boolean;
}

/** One request offered to the fast path. */
export interface FastToolCallRequest {
  /** The call, as `plainToolCall` found it in the request. */
  readonly call: PlainToolCall;
  /** Aborts when the client goes away (or the request times out): cancels the call upstream. */
  readonly signal: AbortSignal;
  readonly principal: GatewayPrincipal;
  /** Answers through the full path, with the call already settled when it was run here. */
  readonly fullPath: (settled?: SettledCall) => Promise<Response>;
}

/** The fast path: a response, or undefined when the request must take the full path (nothing was done). */
export type FastToolCall = (call: FastToolCallRequest) => Promise<Response | undefined>;

const MODERN = '2026-07-28';
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);

/**
 * The fast path over `options.host` (see the module comment for what it takes and why): it
 * answers a plain call itself, hands a settled one to `fullPath`, and returns undefined —
 * having done nothing — for a call only the full path may serve.
 */
export function fastToolCall(options: FastToolCallOptions): FastToolCall {
  const { host } = options;
  return async ({ call, signal, principal, fullPath }) => {
    // With no tools exposed the full path's server advertises none: what the SDK answers then is its own.
    if (options.exposeTools.length === 0) return undefined;
    const entry = servedTools(host, principal, options.naming, options.exposeTools, options.management).get(
      call.name,
    );
    if (!entry) {
      // While the servers are still coming up, the full path waits for them (startup-wait.ts).
      if (!startState(host).done) return undefined;
      const view = { principal, naming: options.naming, expose: options.exposeTools };
      return fail(call.id, unservedTool(host, view, call.name));
    }
    // An MCP App's own tool is served only to a client that declared the extension: the full
    // path decides (app-routes.ts).
    if (!isModelVisible(entry.tool)) return undefined;
    const tooBig = checkInputCaps(call.args, options.limits);
    if (tooBig)
      return fail(call.id, new ProtocolError(ProtocolErrorCode.InvalidParams, `Refused: ${tooBig}.`));
    if (entry.server === MANAGEMENT_SERVER || host.upstreamProtocol(entry.server).era !== 'modern')
      return undefined;
    // A call the operator's `taskAfter` may turn into a task, for a client that takes tasks: the full path runs it (task-calls.ts).
    if (declaresTasks(call.clientCapabilities) && taskAfterMs(host, entry) !== undefined) return undefined;
    // A call the consent gate would ask about goes to the full path, which asks (the gate off asks nothing).
    if (
      options.consent === 'on' &&
      (await consentWouldAsk({ host, principal: principal.id, mode: options.consent }, entry))
    )
      return undefined;

    let answer: RelayAnswer;
    try {
      answer = await host.relayToolCall(
        entry.name,
        call.args,
        { clientCapabilities: call.clientCapabilities },
        { session: principal.id, signal },
      );
    } catch (error) {
      if (signal.aborted) return clientGone();
      // As withCallRelays: policy and approval outcomes are tool errors the model should read.
      if (isSwitchboardError(error, 'POLICY_DENIED') || isSwitchboardError(error, 'APPROVAL_DECLINED'))
        return succeed(call.id, errorResult(error.message));
      const failure = toProtocolError(error);
      return jsonRpcErrorResult(call.id, failure) ?? fullPath({ kind: 'failed', error: failure });
    }
    if (signal.aborted) return clientGone();
    if (answer.kind === 'complete' && plainToolResult(answer.raw)) return succeed(call.id, answer.raw);
    return fullPath({ kind: 'relayed', entry, answer });
  };
}

/** A `tools/call` in the plain form the fast path takes (see `FastToolCallOptions`). */
export interface PlainToolCall {
  readonly id: string | number;
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly clientCapabilities: Record<string, unknown>;
}

/**
 * The call, when `request` (with its parsed `body`) is the plain 2026-07-28 `tools/call`
 * described at `FastToolCallOptions`; undefined for anything else. Pure: reads the request's
 * method and headers only.
 */
export function plainToolCall(head: RequestHead, body: unknown): PlainToolCall | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call' || head.method !== 'POST') return undefined;
  const { id, params } = body;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (!isPlainObject(params) || !hasOnlyKeys(params, PARAM_KEYS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || !isPlainObject(meta) || !hasOnlyKeys(meta, ENVELOPE_KEYS)) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (!isJsonContentType(head.header('content-type'))) return undefined;
  const version = head.header('mcp-protocol-version');
  const method = head.header('mcp-method');
  const toolName = head.header('mcp-name');
  // Exact values only: whitespace, a Base64-encoded name or any mismatch is the SDK's to judge.
  if (version !== MODERN || method !== 'tools/call' || toolName !== name) return undefined;
  if (!classifiedModern(body, version, method, toolName)) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  return {
    id,
    name,
    args: args ?? {},
    clientCapabilities: isPlainObject(capabilities) ? capabilities : {},
  };
}

/**
 * Whether the SDK's classifier routes this request to 2026-07-28. It validates the body with
 * zod, which costs more than the rest of the fast path's checks together; for the plain form
 * checked above its verdict depends only on the body's top-level keys, the id's kind and the
 * `_meta` envelope (the headers are fixed by then, and it reads nothing of `name` or
 * `arguments`), so verdicts are kept by those, for the few envelopes clients send.
 */
function classifiedModern(
  body: Record<string, unknown>,
  version: string,
  method: string,
  name: string,
): boolean {
  const { id } = body;
  const plainShape = hasOnlyKeys(body, BODY_KEYS) && body.jsonrpc === '2.0';
  const key = plainShape
    ? `${typeof id}:${Number.isInteger(id)}:${JSON.stringify((body.params as Record<string, unknown>)._meta)}`
    : undefined;
  const known = key === undefined ? undefined : verdicts.get(key);
  if (known !== undefined) return known;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: name,
    body,
  });
  const modern =
    route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN;
  return key === undefined ? modern : verdicts.remember(key, modern);
}

const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** The classifier's verdicts by body shape and envelope (see `classifiedModern`); a few clients' worth. */
const verdicts = new BoundedMemo<boolean>(256);

function succeed(id: string | number, result: CallToolResult): Response {
  return jsonRpcResultResponse(id, encodeToolResult(result));
}

/** An error the full path's handler throws before any upstream work: answered with status 200. */
function fail(id: string | number, error: ProtocolError): Response {
  return jsonRpcErrorResult(id, error)!;
}

/** What the SDK answers when the client went away before the answer (nobody reads it). */
function clientGone(): Response {
  return new Response(null, { status: 499 });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
