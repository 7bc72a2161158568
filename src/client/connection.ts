import {
  type CallToolResult,
  type Client,
  type GetPromptResult,
  type Implementation,
  LOG_LEVEL_META_KEY,
  type Prompt,
  type ReadResourceResult,
  type RequestOptions,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { ControllerPool, listenForAbort, stopListening } from '../core/controller-pool.js';
import { describeError, SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import { attemptFailure } from './attempt-failure.js';
import { findAuthError } from './auth/auth-errors.js';
import { versionError } from './connect-errors.js';
import { type ConnectAttempt, planRecovery } from './connect-recovery.js';
import { ConnectionDrops } from './connection-drops.js';
import type {
  CallOptions,
  ConnectionEvents,
  ConnectionOptions,
  ConnectionState,
  LogEntry,
  ToolCallOptions,
} from './connection-types.js';
import { DeadlineGroup } from './deadline.js';
import { DirectRequests } from './direct-requests.js';
import {
  type EraVerdictStore,
  isModernVersion,
  MemoryEraVerdictStore,
  planEra,
  serverIdentity,
} from './era.js';
import { mapSdkError } from './error-mapping.js';
import { findByName, ListCache, type ListKind, type ListSnapshot } from './list-cache.js';
import { fetchList, LIST_METHODS } from './list-fetch.js';
import { OutputValidators } from './output-validators.js';
import { passthroughSchema } from './passthrough-schema.js';
import { normalizeToolResult, type ToolResult } from './results.js';
import { buildSdkClient } from './sdk-client.js';
import {
  answerInputRequests,
  declineElicitation,
  resolveRoots,
  type ServerRequestContext,
  type ServerRequestHandlers,
} from './server-requests.js';
import { runCallAsTask, shouldRunAsTask, untunnelTaskResult } from './tool-tasks.js';
import { ProgressRouter, tapTransport } from './transport-tap.js';
import { HttpTransport } from './transports/http.js';
import { StdioTransport } from './transports/stdio.js';
import { TypedEmitter } from './typed-emitter.js';
import { createUpstreamTransport } from './upstream-transport.js';

/**
 * One live connection to one MCP server, in any era and over any transport. It wraps the
 * SDK's `Client` (which speaks the protocol) with what a host needs around it: our own
 * transports, era negotiation with a cached verdict, pausable timeouts, typed errors,
 * cached lists refreshed on `list_changed`, normalized results, and log/event sinks.
 */

/** `_meta` we attach to requests: our progress token, and the log level on 2026-07-28. */
type RequestMeta = { progressToken: string } & Record<string, unknown>;

const CLIENT_INFO: Implementation = { name: 'switchboard', version: '0.1.0' };
const NO_SDK_TIMEOUT = 2_147_483_647;
const defaultEraStore = new MemoryEraVerdictStore();

export class Connection extends TypedEmitter<ConnectionEvents> {
  readonly name: string;
  private readonly config: ServerConfig;
  private readonly eraStore: EraVerdictStore;
  private readonly lists = new ListCache();
  private readonly deadlines = new DeadlineGroup();
  private readonly handlers: ServerRequestHandlers;
  private readonly validators = new OutputValidators();
  private client?: Client;
  private transport?: Transport;
  /** 2026-07-28 relays and callTool past the SDK's request machinery, where allowed (direct-requests.ts). */
  private direct?: DirectRequests;
  /** The transport of a connect attempt under way, so close() can cut it short. */
  private connectingTransport?: Transport;
  private connecting?: Promise<void>;
  private reinitializing?: Promise<void>;
  private readonly progress = new ProgressRouter();
  private readonly controllers = new ControllerPool();
  private readonly drops = new ConnectionDrops();
  private currentState: ConnectionState = 'idle';

  constructor(private readonly options: ConnectionOptions) {
    super();
    this.config = options.config;
    this.name = options.config.name;
    this.eraStore = options.eraStore ?? defaultEraStore;
    const roots = resolveRoots(options.config.roots, options.cwd ?? process.cwd());
    this.handlers = {
      elicitation: options.elicitation ?? declineElicitation,
      ...(options.sampling && { sampling: options.sampling }),
      roots: (ctx) => (options.roots ? options.roots(ctx, roots) : roots),
    };
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  /** The negotiated protocol revision, e.g. "2026-07-28" or "2025-11-25". */
  get protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  get era(): 'modern' | 'legacy' | undefined {
    const v = this.protocolVersion;
    return v === undefined ? undefined : isModernVersion(v) ? 'modern' : 'legacy';
  }

  get serverInfo(): Implementation | undefined {
    return this.client?.getServerVersion();
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** The transport in use (for diagnostics: pid, session id). */
  get activeTransport(): Transport | undefined {
    return this.transport;
  }

  /** Connects (or returns the connect already under way). */
  connect(): Promise<void> {
    if (this.currentState === 'connected') return Promise.resolve();
    if (this.currentState === 'closed') {
      return Promise.reject(
        new SwitchboardError('NOT_CONNECTED', `Connection "${this.name}" was closed; create a new one.`),
      );
    }
    this.connecting ??= this.establish().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Closes the connection and whatever it started. Pending requests fail at once. */
  async close(): Promise<void> {
    if (this.currentState === 'closed') return;
    this.setState('closed');
    const client = this.client;
    const connecting = this.connectingTransport;
    this.client = undefined;
    this.transport = undefined;
    this.direct = undefined;
    this.connectingTransport = undefined;
    this.lists.clear();
    // A handshake under way is cut short: its transport closes, the connect rejects.
    await Promise.all([
      client?.close().catch(() => undefined),
      connecting?.close().catch(() => undefined),
      this.drops.ending,
    ]);
  }

  // ---- lists ---------------------------------------------------------------------------

  listTools(): Promise<ListSnapshot<Tool>> {
    return this.cachedList('tools');
  }

  listResources(): Promise<ListSnapshot<Resource>> {
    return this.cachedList('resources');
  }

  listResourceTemplates(): Promise<ListSnapshot<ResourceTemplate>> {
    return this.cachedList('resourceTemplates');
  }

  listPrompts(): Promise<ListSnapshot<Prompt>> {
    return this.cachedList('prompts');
  }

  // ---- calls ---------------------------------------------------------------------------

  /** Calls a tool and returns its normalized result. `isError` results are returned, not thrown. */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: ToolCallOptions = {},
  ): Promise<ToolResult> {
    const tool = findByName(this.lists.peek<Tool>('tools') ?? (await this.listTools()), name);
    const wantsTask = options.task !== undefined && options.task !== false;
    if (shouldRunAsTask(this.era, this.capabilities, tool, wantsTask)) {
      const raw = await this.callToolAsTask(name, args, options);
      return normalizeToolResult(raw as CallToolResult, tool ? this.validators.for(tool) : undefined);
    }
    // Validation of the output is ours (tool-list-store.ts); the lane is callTool's (direct-requests.ts).
    const direct = this.direct;
    const raw = await this.run('tools/call', options, (client, rq, _meta) => {
      const params = { name, arguments: args, _meta };
      return direct
        ? (direct.call(client, 'tools/call', params, rq) as Promise<CallToolResult>)
        : client.callTool(params, rq);
    });
    return normalizeToolResult(raw, tool ? this.validators.for(tool) : undefined);
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.run('resources/read', options, (client, rq, _meta) =>
      client.readResource({ uri, _meta }, { ...rq, cacheMode: 'bypass' }),
    );
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.run('prompts/get', options, (client, rq, _meta) =>
      client.getPrompt({ name, arguments: args, _meta }, rq),
    );
  }

  /** Checks the server answers: `ping` on legacy connections; 2026-07-28 has no ping, so `server/discover`. */
  async ping(options: CallOptions = {}): Promise<void> {
    if (this.era === 'modern')
      await this.run('server/discover', options, (client, rq) => client.discover(rq));
    else await this.run('ping', options, (client, rq) => client.ping(rq));
  }

  /**
   * Sends any request (custom or extension methods) with a result schema of the caller's.
   * The escape hatch for methods the SDK does not model, such as task polling.
   */
  request<T>(
    method: string,
    params: Record<string, unknown>,
    parse: (raw: unknown) => T,
    options: CallOptions & {
      /** Hand a 2026-07-28 `input_required` answer back instead of fulfilling it here (relaying). */
      readonly allowInputRequired?: boolean;
    } = {},
  ): Promise<T> {
    return this.run(method, options, async (client, rq, meta) => {
      const sent = { ...params, _meta: { ...meta, ...(params._meta as Record<string, unknown>) } };
      const direct = options.allowInputRequired ? this.direct : undefined;
      if (direct) return parse(await direct.request(method, sent, rq.signal!));
      const relaying = options.allowInputRequired ? { ...rq, allowInputRequired: true } : rq;
      return parse(await client.request({ method, params: sent }, passthroughSchema, relaying));
    });
  }

  // ---- internals: tasks ----------------------------------------------------------------------

  /** Tasks are ours: SDK v2 removed them (see task-runner.ts for the wire formats). */
  private callToolAsTask(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<Record<string, unknown>> {
    const context = this.requestContext(options.signal ?? new AbortController().signal);
    return runCallAsTask(name, args, options, {
      era: this.era ?? 'legacy',
      requestTimeoutMs: this.config.timeouts.requestMs,
      handlers: this.handlers,
      send: (method, params, rq) => this.request(method, params, untunnelTaskResult, rq),
      answer: (requests) =>
        this.deadlines.whilePaused(() => answerInputRequests(requests, this.handlers, context)),
    });
  }

  // ---- internals: connect ------------------------------------------------------------------

  private async establish(): Promise<void> {
    this.setState('connecting');
    const identity = serverIdentity(this.config.transport);
    const plan = planEra(
      this.config.protocol,
      this.eraStore.get(identity),
      Date.now(),
      this.probeTimeoutMs(),
    );
    try {
      try {
        await this.attempt({ plan });
      } catch (error) {
        const retry = this.currentState === 'closed' ? undefined : planRecovery(error, plan, this.config);
        if (!retry) throw error;
        if (retry.forgetVerdict) this.eraStore.delete(identity);
        this.log('lifecycle', 'info', `retrying connect: ${retry.reason}`);
        try {
          await this.attempt(retry.attempt);
        } catch (second) {
          // When the HTTP+SSE fallback fails too, the first answer is the one that explains.
          if (!retry.attempt.sse || !(error instanceof SwitchboardError)) throw second;
          this.log('lifecycle', 'info', `HTTP+SSE fallback failed too: ${describeError(second)}`);
          throw error;
        }
      }
    } catch (error) {
      const failure = error instanceof SwitchboardError ? error : mapSdkError(error, this.name, 'connect');
      this.log('lifecycle', 'error', `connect failed: ${failure.message}`);
      if (this.currentState !== 'closed') this.setState('disconnected', failure);
      throw failure;
    }
    this.recordVerdict(identity);
    const level = this.options.logLevel;
    if (level && this.era === 'legacy' && this.capabilities?.logging) {
      await this.client?.setLoggingLevel(level).catch((error: unknown) => {
        this.log('lifecycle', 'warning', `logging/setLevel ${level} failed: ${describeError(error)}`);
      });
    }
    this.log('lifecycle', 'info', `connected (${this.protocolVersion})`);
    this.setState('connected');
  }

  private async attempt(attempt: ConnectAttempt): Promise<void> {
    const transport = createUpstreamTransport(this.config, {
      env: this.options.env ?? process.env,
      sse: attempt.sse === true,
      onSpawn: (pid) => this.log('lifecycle', 'info', `started process ${pid}`),
      ...(this.options.spawnRecorder && { spawnRecorder: this.options.spawnRecorder }),
      onStderrLine: (line) => this.log('stderr', 'info', line),
      onStdoutNoise: (line) => this.log('stdout', 'warning', `not JSON-RPC, ignored: ${line}`),
      ...(this.options.credentials && { credentials: this.options.credentials }),
      ...(this.options.onAuthorizationUrl && { onAuthorizationUrl: this.options.onAuthorizationUrl }),
      onAuthLog: (text) => this.log('lifecycle', 'info', text),
    });
    const client = buildSdkClient(attempt.plan, {
      clientInfo: this.options.clientInfo ?? CLIENT_INFO,
      pageCap: this.pageCap(),
      handlers: this.handlers,
      interactively: (fn) => this.deadlines.whilePaused(fn),
      context: (signal) => this.requestContext(signal),
      onListChanged: (kind) => this.onListChanged(kind),
      onServerLog: (level, text, logger) => this.log('server', level, text, logger),
      onNotification: (method, params) =>
        this.options.onEvent?.({ server: this.name, method, params, receivedAt: new Date() }),
      onTransportError: (error) => this.log('lifecycle', 'debug', `transport: ${describeError(error)}`),
    });
    const offered = tapTransport(transport, this.progress);
    this.connectingTransport = transport;
    try {
      await client.connect(transport, {
        timeout: this.config.timeouts.connectMs,
        ...(attempt.plan.prior && { prior: attempt.plan.prior }),
      });
    } catch (error) {
      this.connectingTransport = undefined;
      // Classify first: closing the transport ourselves would look like the server exiting.
      // An auth error wins: the SDK wraps some (a probe's failed send) in errors of its own.
      const failure =
        findAuthError(error) ??
        attemptFailure({
          server: this.name,
          error,
          transport,
          plan: attempt.plan,
          connectMs: this.config.timeouts.connectMs,
          offered: offered(),
        });
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw failure;
    }
    const negotiated = client.getNegotiatedProtocolVersion();
    if (attempt.plan.pinned !== undefined && negotiated !== attempt.plan.pinned) {
      await client.close().catch(() => undefined);
      throw versionError(this.name, negotiated ?? offered() ?? 'none', [attempt.plan.pinned]);
    }
    this.connectingTransport = undefined;
    if (this.currentState === 'closed') {
      // close() was called while we were connecting: leave nothing running.
      await client.close().catch(() => undefined);
      throw new SwitchboardError('NOT_CONNECTED', `Connection "${this.name}" was closed while connecting.`, {
        details: { server: this.name },
      });
    }
    client.onclose = () => this.handleClosed(client, transport);
    this.client = client;
    this.transport = transport;
    const direct = this.options.directRequests !== false && transport instanceof StdioTransport;
    this.direct = direct ? DirectRequests.attach(client, transport) : undefined;
    this.lists.clear();
  }

  private recordVerdict(identity: string): void {
    if (this.config.protocol.kind !== 'auto' || !this.client) return;
    const discover = this.client.getDiscoverResult();
    if (this.era === 'modern' && discover)
      this.eraStore.set(identity, { kind: 'modern', discover, at: Date.now() });
    else if (this.era === 'legacy') this.eraStore.set(identity, { kind: 'legacy', at: Date.now() });
  }

  private handleClosed(client: Client, transport: Transport): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.transport = undefined;
    this.direct = undefined;
    this.lists.clear();
    if (this.currentState !== 'connected') return;
    const error = this.drops.dropped(this.name, client, transport);
    this.log('lifecycle', 'warning', error.message);
    this.setState('disconnected', error);
    this.emit('disconnected', error);
  }

  // ---- internals: requests -------------------------------------------------------------------

  /**
   * Runs one request with our deadline (reset on progress, paused while the user answers),
   * the caller's signal, typed errors, and one re-initialize on an expired HTTP session.
   */
  private async run<T>(
    method: string,
    options: CallOptions,
    fn: (client: Client, rq: RequestOptions, meta: RequestMeta) => Promise<T>,
    retried = false,
  ): Promise<T> {
    const client = this.requireClient(method);
    const controller = this.controllers.take();
    const budget = options.timeoutMs ?? this.config.timeouts.requestMs;
    let timedOut = false;
    const deadline = this.deadlines.start(budget, () => {
      timedOut = true;
      controller.abort('timeout');
    });
    const userSignal = options.signal;
    const onAbort = () => controller.abort('cancelled');
    if (userSignal) listenForAbort(userSignal, onAbort);
    // Progress is routed by our own token, read straight off the transport: the SDK dispatches
    // notifications a tick after responses, so its handler loses the last progress event.
    const progressToken = this.progress.open((p) => {
      deadline.reset();
      options.onProgress?.(p);
    });
    try {
      const meta: RequestMeta = { progressToken };
      // 2026-07-28 servers log only when asked; ask only when someone reads the logs.
      if (this.options.onLog && this.era === 'modern')
        meta[LOG_LEVEL_META_KEY] = this.options.logLevel ?? 'info';
      return await fn(client, { signal: controller.signal, timeout: NO_SDK_TIMEOUT }, meta);
    } catch (error) {
      if (timedOut) {
        throw new SwitchboardError(
          'REQUEST_TIMEOUT',
          `Server "${this.name}" did not answer ${method} within ${formatDuration(budget)}; the request was cancelled. ` +
            'Raise timeouts.request for this server if it is just slow.',
          { cause: error, details: { server: this.name, timeoutMs: budget } },
        );
      }
      if (userSignal?.aborted) {
        throw new SwitchboardError(
          'REQUEST_CANCELLED',
          `${method} on server "${this.name}" was cancelled by the caller.`,
          {
            cause: error,
            details: { server: this.name },
          },
        );
      }
      const mapped = this.drops.cutOff(mapSdkError(error, this.name, method), client, method);
      if (!retried && this.isExpiredSession(mapped, client)) {
        await this.reinitialize(client);
        return this.run(method, options, fn, true);
      }
      throw mapped;
    } finally {
      this.progress.close(progressToken);
      this.deadlines.end(deadline);
      this.controllers.release(controller); // its listeners are gone once the request settled
      if (userSignal) stopListening(userSignal, onAbort);
    }
  }

  private requireClient(method: string): Client {
    if (!this.client || this.currentState !== 'connected') {
      throw new SwitchboardError(
        this.currentState === 'disconnected' ? 'UPSTREAM_DISCONNECTED' : 'NOT_CONNECTED',
        `Server "${this.name}" is not connected (state: ${this.currentState}); ${method} was not sent. Call connect() first.`,
        { details: { server: this.name } },
      );
    }
    return this.client;
  }

  /** HTTP 404 on a request that carried a legacy session id: the session expired (spec: re-initialize). */
  private isExpiredSession(error: SwitchboardError, client: Client): boolean {
    return (
      error.code === 'UPSTREAM_HTTP' &&
      error.details.status === 404 &&
      client === this.client &&
      this.transport instanceof HttpTransport &&
      this.transport.sessionId !== undefined
    );
  }

  private reinitialize(stale: Client): Promise<void> {
    this.reinitializing ??= (async () => {
      this.log('lifecycle', 'info', 'HTTP session expired (404); starting a new session');
      const old = this.transport;
      this.client = undefined;
      await stale.close().catch(() => undefined);
      await old?.close().catch(() => undefined);
      await this.attempt({
        plan: {
          negotiation: { mode: 'legacy' },
          supportedVersions: planEra(this.config.protocol, undefined, 0, 0).supportedVersions,
        },
      });
    })().finally(() => {
      this.reinitializing = undefined;
    });
    return this.reinitializing;
  }

  private async cachedList<T>(kind: ListKind): Promise<ListSnapshot<T>> {
    return this.lists.get<T>(kind, () => this.fetchList<T>(kind));
  }

  private async fetchList<T>(kind: ListKind): Promise<ListSnapshot<T>> {
    const caps = this.requireClient(`${kind} list`).getServerCapabilities();
    const supported = kind === 'tools' ? caps?.tools : kind === 'prompts' ? caps?.prompts : caps?.resources;
    if (!supported) return { items: [], truncated: false };
    const list = await this.run(LIST_METHODS[kind].name, {}, (client, rq) =>
      fetchList<T>(client, kind, rq, this.pageCap()),
    );
    if (list.truncated) {
      this.log(
        'lifecycle',
        'warning',
        `${LIST_METHODS[kind].name}: stopped after ${this.pageCap()} pages; the list is incomplete`,
      );
    }
    return list;
  }

  /** A list changed: drop it, fetch it again at once, then tell listeners (with the new list). */
  private onListChanged(kind: ListKind): void {
    this.lists.invalidate(kind);
    if (kind === 'resources') this.lists.invalidate('resourceTemplates');
    if (this.currentState !== 'connected') return;
    this.cachedList(kind).then(
      (list) => this.emit('listChanged', kind, list),
      (error: unknown) => {
        this.log(
          'lifecycle',
          'warning',
          `refreshing ${kind} after list_changed failed: ${describeError(error)}`,
        );
        this.emit('listChanged', kind, undefined);
      },
    );
  }

  private requestContext(signal: AbortSignal): ServerRequestContext {
    return { server: this.name, signal };
  }

  private setState(state: ConnectionState, error?: SwitchboardError): void {
    this.currentState = state;
    this.emit('state', state, error);
  }

  private log(source: LogEntry['source'], level: string, text: string, logger?: string): void {
    this.options.onLog?.({
      server: this.name,
      source,
      level,
      text,
      at: new Date(),
      ...(logger !== undefined && { logger }),
    });
  }

  private probeTimeoutMs(): number {
    return this.config.transport.kind === 'stdio'
      ? Math.min(this.options.probeTimeoutMs ?? 10_000, this.config.timeouts.connectMs)
      : this.config.timeouts.connectMs;
  }

  private pageCap(): number {
    return this.options.listPageCap ?? 50;
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
