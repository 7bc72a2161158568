import { randomUUID } from 'node:crypto';
import {
  type ClientCapabilities,
  isJsonContentType,
  type JSONRPCMessage,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { LogEntry } from '../../client/connection-types.js';
import { isSwitchboardError } from '../../core/errors.js';
import { isModelVisible } from '../../core/mcp-apps.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import { MANAGEMENT_SERVER } from '../../host/management/management-tools.js';
import type { RequestHead } from '../http/context.js';
import { preparedResponse } from '../http/prepared-response.js';
import { consentWouldAsk } from './consent-gate.js';
import type { SessionEventStore } from './event-store.js';
import type { FastToolCallOptions } from './fast-tool-call.js';
import { checkInputCaps } from './input-caps.js';
import { atLeast } from './log-levels.js';
import { type GatewayPrincipal, servedTools } from './served-catalog.js';
import type { SettledCall } from './settled-call.js';
import { startState } from './startup-wait.js';
import { unservedTool } from './unserved.js';
import { errorResult, toProtocolError } from './upstream-calls.js';
import { jsonRpcErrorMessage, plainToolResult, resultMessageText } from './wire-result.js';

/*
 * The fast path for a 2025-era session's most frequent request: a plain `tools/call`. The full
 * path hands it to the SDK's session transport, which validates the message, opens a web
 * stream, dispatches to the session's server (request and result validated again) and writes
 * the answer as SSE — several times the cost of the call itself. This answers such a call
 * with the same messages, step for step (the SDK's
 * `WebStandardStreamableHTTPServerTransport.handlePostRequest` and the gateway's `tools/call`
 * handler), as JSON or SSE as the transport would write them, and leaves everything else to
 * the SDK, untouched:
 *
 * - Taken only for one JSON-RPC request (`jsonrpc`, `id`, `method`, `params` and nothing else)
 *   of method `tools/call` whose params are `name` and `arguments` only — no `_meta`, so no
 *   progress token, idempotency key or task — posted with the headers the transport wants in
 *   their plain passing form (Accept naming JSON and SSE, a JSON content type, the session's
 *   own protocol version), to a session whose client offers no elicitation, sampling or roots
 *   (the full path would pass such a client to the upstream as the caller of its requests).
 * - Taken only for a served tool that is not a management tool, when the consent gate would
 *   not ask; unknown tools and input caps are answered with the full path's errors.
 * - A quick, quiet call with a small answer (answered within `STREAM_AFTER_MS`, nothing sent
 *   before it, at most `JSON_ANSWER_MAX_CHARS` of JSON) is answered as one JSON body, as the
 *   SDK's transport does with `enableJsonResponse` (MCP Streamable HTTP: the server chooses
 *   JSON or SSE per request, and clients take both). An SSE stream would buy it nothing: its
 *   priming event and answer leave in the same write, so a client never holds the event id
 *   that could resume it without holding the answer too; and keeping every such stream in
 *   the event store for resumption held tens of MiB at a few thousand calls a second.
 * - Any other answer is an SSE stream as the SDK writes it: the priming event (2025-11-25 on,
 *   with `retry`), then the response, each stored in the session's event store so `GET` with
 *   `Last-Event-ID` replays them. The upstream's log lines during the call go on the stream
 *   too, at the session's level. A call that logs or runs past `STREAM_AFTER_MS` gets its
 *   stream opened then, as the SDK opens it at once, so the client can resume it; a large
 *   answer, which may arrive in pieces, is written as a whole stream that can be resumed.
 * - A result the SDK's validation might change (wire-result.ts `plainToolResult` says which)
 *   is settled: the session's server answers with it instead of calling again. The upstream is
 *   never called twice.
 * - Cancellation is the session's: `notifications/cancelled` for the request, or the session
 *   closing, cancels the call upstream; a dropped connection does not (the answer waits in the
 *   event store). A cancelled call's stream ends without an answer (the SDK sends none).
 */

/** How long a call may run before its stream is opened to the client (see above). */
export const STREAM_AFTER_MS = 100;

/** The largest answer (characters of JSON) a quick, quiet call gets as a plain JSON body (see above). */
export const JSON_ANSWER_MAX_CHARS = 16 * 1024;

/** A `tools/call` in the plain form this path takes (see the module comment). */
export interface PlainSessionCall {
  readonly id: string | number;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** Where a session call runs: the session's state, as the endpoint holds it. */
export interface SessionCallScope {
  readonly sessionId: string;
  readonly principal: GatewayPrincipal;
  /** The session's view of the event store (the SDK transport's own). */
  readonly events: SessionEventStore;
  /** The `retry` of the priming event, as the transport is configured. */
  readonly retryMs: number;
  /** The protocol version the session negotiated. */
  readonly protocolVersion: string;
  /** The session's threshold for relayed log lines (`logging/setLevel`); undefined: every line. */
  readonly logLevel: LoggingLevel | undefined;
  /** Aborts when the client cancels this request or the session closes, not when the connection drops. */
  readonly signal: AbortSignal;
  /** The SDK's answer to this very request, with the call settled already when it ran here. */
  readonly fullPath: (settled?: SettledCall) => Promise<Response>;
  /** Called once the call is over (answered, failed or cancelled), however the answer went out. */
  readonly finished: () => void;
  /** Told about failures no client sees (a stream that could not be written). */
  readonly onerror?: (error: Error) => void;
}

/** The fast path: a response, or undefined when the SDK must serve the request (nothing was done). */
export type FastSessionCall = (
  call: PlainSessionCall,
  scope: SessionCallScope,
) => Promise<Response | undefined>;

const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments']);

/**
 * The call, when `body` (with the request's `head`) is the plain session `tools/call`
 * described in the module comment, for a session that negotiated `negotiated`. Pure.
 */
export function plainSessionCall(
  head: RequestHead,
  body: unknown,
  negotiated: string | undefined,
): PlainSessionCall | undefined {
  if (negotiated === undefined || head.method !== 'POST' || !isPlainObject(body)) return undefined;
  if (!hasOnlyKeys(body, BODY_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call')
    return undefined;
  const { id, params } = body;
  // A JSON-RPC id the SDK accepts: a string or an integer.
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  if (!isPlainObject(params) || !hasOnlyKeys(params, PARAM_KEYS)) return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  const accept = head.header('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(head.header('content-type'))) return undefined;
  if (head.header('mcp-protocol-version') !== negotiated) return undefined;
  return { id, name, args: args ?? {} };
}

/** Whether a session's client offers requests of its own to upstreams (then the full path relays them). */
export function offersCallbacks(capabilities: ClientCapabilities | undefined): boolean {
  return (
    capabilities?.elicitation !== undefined ||
    capabilities?.sampling !== undefined ||
    capabilities?.roots !== undefined
  );
}

/**
 * The host's log lines, handed to the calls in flight on the server that wrote them, through
 * one host listener while any call follows: a listener per call made the host's emitter copy
 * its listener list on every call's start and end, and warn of a leak past ten calls at once.
 */
class LogFollowers {
  private readonly byServer = new Map<string, Set<(line: LogEntry) => void>>();
  private count = 0;
  private readonly deliver = (line: LogEntry) => {
    const followers = this.byServer.get(line.server);
    if (followers) for (const follower of followers) follower(line);
  };

  constructor(private readonly host: Pick<FastToolCallOptions['host'], 'on' | 'off'>) {}

  /** Hands `server`'s lines to `follower` until the returned function is called. */
  follow(server: string, follower: (line: LogEntry) => void): () => void {
    let followers = this.byServer.get(server);
    if (!followers) {
      followers = new Set();
      this.byServer.set(server, followers);
    }
    followers.add(follower);
    if (this.count++ === 0) this.host.on('log', this.deliver);
    return () => {
      if (!followers.delete(follower)) return;
      if (followers.size === 0) this.byServer.delete(server);
      if (--this.count === 0) this.host.off('log', this.deliver);
    };
  }
}

/** What a call came to: a message to send, a result for the SDK to answer with, or nothing (cancelled). */
type Outcome =
  | {
      readonly kind: 'message';
      readonly message: JSONRPCMessage;
      /** `JSON.stringify(message)`, when made already (a result's, from its parts' one encoding). */
      readonly json?: string;
    }
  | { readonly kind: 'settled'; readonly settled: SettledCall }
  | { readonly kind: 'cancelled' };

const CANCELLED: Outcome = { kind: 'cancelled' };

/** The fast path over `options.host` (see the module comment for what it takes and why). */
export function fastSessionCall(options: FastToolCallOptions): FastSessionCall {
  const { host } = options;
  const logs = new LogFollowers(host);
  /**
   * What the full path's handler does before any upstream work, as far as it needs no waiting:
   * the tool to call, the answer without one (its error), or FULL_PATH when only the full path
   * may serve the call.
   */
  const before = (
    call: PlainSessionCall,
    scope: SessionCallScope,
  ): CatalogTool | Promise<Response> | typeof FULL_PATH => {
    if (options.exposeTools.length === 0) return FULL_PATH;
    const served = servedTools(
      host,
      scope.principal,
      options.naming,
      options.exposeTools,
      options.management,
    );
    const entry = served.get(call.name);
    if (!entry) {
      // While the servers are still coming up, the full path waits for them (startup-wait.ts).
      if (!startState(host).done) return FULL_PATH;
      const view = { principal: scope.principal, naming: options.naming, expose: options.exposeTools };
      const error = unservedTool(host, view, call.name);
      return new SessionStream(scope).whole(jsonRpcErrorMessage(call.id, error));
    }
    // An MCP App's own tool is served only to a client that declared the extension: the full
    // path decides (app-routes.ts).
    if (!isModelVisible(entry.tool)) return FULL_PATH;
    const tooBig = checkInputCaps(call.args, options.limits);
    if (tooBig) {
      const error = new ProtocolError(ProtocolErrorCode.InvalidParams, `Refused: ${tooBig}.`);
      return new SessionStream(scope).whole(jsonRpcErrorMessage(call.id, error));
    }
    return entry.server === MANAGEMENT_SERVER ? FULL_PATH : entry;
  };
  return async (call, scope) => {
    const checked = before(call, scope);
    if (checked === FULL_PATH || checked instanceof Promise) {
      scope.finished();
      return checked === FULL_PATH ? undefined : checked;
    }
    // A call the consent gate would ask about goes to the full path, which asks (the gate off asks nothing).
    const asks =
      options.consent === 'on' &&
      (await consentWouldAsk({ host, principal: scope.principal.id, mode: options.consent }, checked));
    if (asks) {
      scope.finished();
      return undefined;
    }
    // Awaited, not returned: an async function handing back a promise costs two more turns.
    return await run(checked, call, scope);
  };

  /** Calls `entry` upstream and answers as the module comment says: JSON when quick and quiet, else a stream. */
  async function run(entry: CatalogTool, call: PlainSessionCall, scope: SessionCallScope): Promise<Response> {
    const stream = new SessionStream(scope);
    // Whichever comes first: the call's outcome, or a reason to open the stream (time, a log line).
    let settle!: (first: Outcome | 'open') => void;
    const first = new Promise<Outcome | 'open'>((resolve) => {
      settle = resolve;
    });
    const open = () => settle('open');
    const timer = setTimeout(open, STREAM_AFTER_MS);
    const threshold = scope.logLevel ?? 'debug';
    // As the full path (withCallRelays): the server's lines while the call runs reach the caller.
    const relayLog = (line: LogEntry) => {
      if (line.source !== 'server' || !atLeast(line.level, threshold)) return;
      stream.send({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: {
          level: line.level as LoggingLevel,
          data: line.text,
          ...(line.logger && { logger: line.logger }),
        },
      });
      open();
    };
    const stopRelaying = logs.follow(entry.server, relayLog);
    const outcome = (async (): Promise<Outcome> => {
      try {
        const result = await host.callTool(entry.name, call.args, {
          session: scope.principal.id,
          signal: scope.signal,
        });
        if (scope.signal.aborted) return CANCELLED;
        return plainToolResult(result.raw)
          ? {
              kind: 'message',
              message: { result: result.raw, jsonrpc: '2.0', id: call.id },
              json: resultMessageText(call.id, result.raw),
            }
          : { kind: 'settled', settled: { kind: 'result', result: result.raw } };
      } catch (error) {
        if (scope.signal.aborted) return CANCELLED;
        // As withCallRelays: policy and approval outcomes are tool errors the model should read.
        if (isSwitchboardError(error, 'POLICY_DENIED') || isSwitchboardError(error, 'APPROVAL_DECLINED'))
          return {
            kind: 'message',
            message: { result: errorResult(error.message), jsonrpc: '2.0', id: call.id },
          };
        return { kind: 'message', message: jsonRpcErrorMessage(call.id, toProtocolError(error)) };
      } finally {
        clearTimeout(timer);
        stopRelaying();
        scope.finished();
      }
    })();
    void outcome.then(settle);
    const winner = await first;
    if (winner !== 'open' && !stream.started) {
      if (winner.kind === 'settled') return await scope.fullPath(winner.settled);
      return await (winner.kind === 'message' ? stream.whole(winner.message, winner.json) : stream.whole());
    }
    const response = stream.open();
    void outcome
      .then(async (last) => {
        if (last.kind === 'message') stream.send(last.message, last.json);
        else if (last.kind === 'settled') stream.send(await answerOf(scope, last.settled, call.id));
      })
      .catch((error: unknown) => scope.onerror?.(error instanceof Error ? error : new Error(String(error))))
      .finally(() => stream.end());
    return response;
  }
}

/** `before`'s word that only the full path may serve the call. */
const FULL_PATH = Symbol('full path');

/**
 * The SDK's answer to a settled call, once the stream is open already: the session's server
 * answers the request on a stream of its own, and its message is taken from there. Rare (a
 * result the SDK's validation might change, from a call that logged or ran long).
 */
async function answerOf(
  scope: SessionCallScope,
  settled: SettledCall,
  id: string | number,
): Promise<JSONRPCMessage> {
  const text = await (await scope.fullPath(settled)).text();
  for (const event of text.split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n');
    if (data === '') continue;
    const message = JSON.parse(data) as JSONRPCMessage & { id?: unknown };
    if (message.id === id) return message;
  }
  return jsonRpcErrorMessage(id, new ProtocolError(ProtocolErrorCode.InternalError, 'The answer was lost.'));
}

/** The headers the SDK's transport answers a POST with as JSON (`enableJsonResponse`). */
function jsonHeaders(sessionId: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'mcp-session-id': sessionId };
}

/** The SSE headers the SDK's transport answers a POST with. */
function sseHeaders(sessionId: string): Record<string, string> {
  return {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'mcp-session-id': sessionId,
  };
}

/**
 * One POST's SSE stream, written as the SDK's transport writes it: the priming event first
 * (only from 2025-11-25 on, whose clients accept an empty `data:`), then each message, every
 * event stored before it is written. Held as text until `open()` hands it over as a stream
 * (or `whole()` as one body); events are stored and written in the order they are sent.
 */
class SessionStream {
  /** Made with the first stored event: most answers are plain JSON and store none. */
  private id: string | undefined;
  private readonly held: string[] = [];
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private queue: Promise<void> = SETTLED;
  private primed = false;
  private ended = false;
  /** Whether anything was sent (so the SDK can no longer be asked to answer instead). */
  started = false;

  constructor(private readonly scope: SessionCallScope) {}

  /**
   * Stores `message` in the event store and writes it, after everything sent before; `json` is
   * its text when the caller made it already. One text serves both: a large answer is encoded once.
   */
  send(message: JSONRPCMessage, json = JSON.stringify(message)): Promise<void> {
    this.started = true;
    this.queue = this.queue
      .then(async () => {
        await this.prime();
        const id = await this.scope.events.storeEncoded(this.streamId(), message, json);
        this.write(`event: message\nid: ${id}\ndata: ${json}\n\n`);
      })
      .catch((error: unknown) =>
        this.scope.onerror?.(error instanceof Error ? error : new Error(String(error))),
      );
    return this.queue;
  }

  /**
   * The whole answer as one response: `last` alone as a JSON body when nothing was sent before
   * it and it is small (see the module comment); otherwise the stream, what was sent, then `last`.
   */
  async whole(last?: JSONRPCMessage, json = last && JSON.stringify(last)): Promise<Response> {
    if (last && !this.started && json!.length <= JSON_ANSWER_MAX_CHARS)
      return preparedResponse(json!, { status: 200, headers: jsonHeaders(this.scope.sessionId) });
    if (last) await this.send(last, json);
    else await this.queue.then(() => this.prime());
    return preparedResponse(this.held.join(''), { status: 200, headers: sseHeaders(this.scope.sessionId) });
  }

  /** The stream as a response that stays open until `end()`: what was sent so far, then the rest as it comes. */
  open(): Response {
    this.started = true;
    this.queue = this.queue.then(() => this.prime());
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        for (const text of this.held.splice(0)) controller.enqueue(encoder.encode(text));
      },
      cancel: () => {
        // The client went away: the call goes on, and its answer waits in the event store.
        this.controller = undefined;
      },
    });
    return new Response(body, { status: 200, headers: sseHeaders(this.scope.sessionId) });
  }

  /** Ends the stream once everything sent is written. */
  end(): void {
    void this.queue.then(() => {
      if (this.ended) return;
      this.ended = true;
      try {
        this.controller?.close();
      } catch {
        // Cancelled by the client meanwhile.
      }
    });
  }

  private streamId(): string {
    this.id ??= randomUUID();
    return this.id;
  }

  private async prime(): Promise<void> {
    if (this.primed) return;
    this.primed = true;
    if (!primes(this.scope.protocolVersion)) return;
    const id = await this.scope.events.storeEvent(this.streamId(), {} as JSONRPCMessage);
    this.write(`id: ${id}\nretry: ${this.scope.retryMs}\ndata: \n\n`);
  }

  private write(text: string): void {
    if (this.controller) {
      try {
        this.controller.enqueue(encoder.encode(text));
      } catch {
        // Cancelled by the client meanwhile: the event is in the store.
      }
    } else if (!this.ended) this.held.push(text);
  }
}

const encoder = new TextEncoder();
const SETTLED: Promise<void> = Promise.resolve();

/** Whether the SDK opens a POST stream with a priming event for this version (an empty `data:`: 2025-11-25 on). */
function primes(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version >= '2025-11-25';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
