import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  type GetPromptResult,
  type Implementation,
  type JSONRPCMessage,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type Progress,
  type Prompt,
  type ReadResourceResult,
  type RequestOptions,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  SdkError,
  SdkErrorCode,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describeError, SwitchboardError } from '../core/errors.js';
import { interpolate, interpolateRecord } from '../core/interpolate.js';
import type { ServerConfig } from '../core/server-config.js';
import { classifyConnectFailure, versionError } from './connect-errors.js';
import { Deadline } from './deadline.js';
import {
  type EraPlan,
  type EraVerdictStore,
  isModernVersion,
  MemoryEraVerdictStore,
  planEra,
  serverIdentity,
} from './era.js';
import { mapSdkError } from './error-mapping.js';
import { ListCache, type ListKind, type ListSnapshot } from './list-cache.js';
import { normalizeToolResult, type OutputValidator, type ToolResult } from './results.js';
import {
  answerInputRequests,
  declineElicitation,
  type ElicitationHandler,
  resolveRoots,
  type SamplingHandler,
  type ServerRequestContext,
} from './server-requests.js';
import { runToolAsTask, serverSupportsToolTasks, type TaskInfo, toolTaskSupport } from './task-runner.js';
import { createSseTransport, HttpTransport } from './transports/http.js';
import { buildChildEnv } from './transports/safe-env.js';
import { StdioTransport } from './transports/stdio.js';
import { TypedEmitter } from './typed-emitter.js';

/**
 * One live connection to one MCP server, in any era and over any transport. It wraps the
 * SDK's `Client` (which speaks the protocol) with what a host needs around it: our own
 * transports, era negotiation with a cached verdict, pausable timeouts, typed errors,
 * cached lists refreshed on `list_changed`, normalized results, and log/event sinks.
 */

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed';

/** One line for the server's log. `source` says where it came from. */
export interface LogEntry {
  readonly server: string;
  readonly source: 'stderr' | 'stdout' | 'server' | 'lifecycle';
  readonly level: string;
  readonly text: string;
  readonly at: Date;
  readonly logger?: string;
}

/** A server notification that is not logging or a list change (e.g. `event/new_email`). */
export interface ServerEvent {
  readonly server: string;
  readonly method: string;
  readonly params: unknown;
  readonly receivedAt: Date;
}

export type ConnectionEvents = {
  state: [state: ConnectionState, error?: SwitchboardError];
  listChanged: [kind: ListKind];
  disconnected: [error: SwitchboardError];
};

export interface ConnectionOptions {
  readonly config: ServerConfig;
  readonly clientInfo?: Implementation;
  /** Variables for `${VAR}` interpolation. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory for the default root and relative stdio commands. */
  readonly cwd?: string;
  readonly onLog?: (entry: LogEntry) => void;
  readonly onEvent?: (event: ServerEvent) => void;
  /** Answers elicitations; the default declines. */
  readonly elicitation?: ElicitationHandler;
  /** Answers sampling requests; without one the capability is not declared. */
  readonly sampling?: SamplingHandler;
  readonly eraStore?: EraVerdictStore;
  /** Most pages followed per list before reporting it truncated. Default 50. */
  readonly listPageCap?: number;
  /**
   * Least severe server log level wanted. 2026-07-28 servers send logs only when a request
   * asks (per-request `_meta`), so it is sent with every request there (default "info"); on
   * legacy connections it is sent once with `logging/setLevel` when set explicitly.
   */
  readonly logLevel?: LoggingLevel;
  /** Probe timeout for `server/discover` on stdio; default 10 s. */
  readonly probeTimeoutMs?: number;
}

/** Options of one call. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  /** Overrides the server's request timeout for this call, ms. */
  readonly timeoutMs?: number;
}

/** Options of a tool call. */
export interface ToolCallOptions extends CallOptions {
  /**
   * Run the call as an MCP task when the server and tool support it (2025-11-25 tasks, or the
   * 2026-07-28 Tasks extension): the call returns at once server-side and is polled to its end.
   * A tool whose `taskSupport` is `required` always runs as a task. `ttlMs` is asked for in the
   * 2025-11-25 era (the extension lets the server choose).
   */
  readonly task?: boolean | { readonly ttlMs?: number };
  /** Status changes of the task, when the call runs as one. */
  readonly onTaskStatus?: (task: TaskInfo) => void;
}

/** `_meta` we attach to requests: our progress token, and the log level on 2026-07-28. */
type RequestMeta = { progressToken: string } & Record<string, unknown>;

const CLIENT_INFO: Implementation = { name: 'switchboard', version: '0.1.0' };
const NO_SDK_TIMEOUT = 2_147_483_647;
const defaultEraStore = new MemoryEraVerdictStore();

interface Attempt {
  readonly plan: EraPlan;
  readonly sse?: boolean;
}

export class Connection extends TypedEmitter<ConnectionEvents> {
  readonly name: string;
  private readonly config: ServerConfig;
  private readonly eraStore: EraVerdictStore;
  private readonly lists = new ListCache();
  private readonly deadlines = new Set<Deadline>();
  private readonly validators = new WeakMap<Tool, OutputValidator | undefined>();
  private readonly ajv = new AjvJsonSchemaValidator();
  private client?: Client;
  private transport?: Transport;
  private connecting?: Promise<void>;
  private reinitializing?: Promise<void>;
  private interactive = 0;
  private progressCounter = 0;
  private readonly progressHandlers = new Map<string, (p: Progress) => void>();
  private currentState: ConnectionState = 'idle';

  constructor(private readonly options: ConnectionOptions) {
    super();
    this.config = options.config;
    this.name = options.config.name;
    this.eraStore = options.eraStore ?? defaultEraStore;
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
    this.client = undefined;
    this.transport = undefined;
    this.lists.clear();
    await client?.close().catch(() => undefined);
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
    const tool = (await this.listTools()).items.find((t) => t.name === name);
    if (this.shouldRunAsTask(tool, options)) {
      const raw = await this.callToolAsTask(name, args, options);
      return normalizeToolResult(raw as CallToolResult, tool ? this.outputValidator(tool) : undefined);
    }
    // The definition goes along for SEP-2243 header mirroring, without its outputSchema: the
    // SDK would throw on a mismatch, and we report it in the result instead.
    const definition = tool ? stripOutputSchema(tool) : undefined;
    const raw = await this.run('tools/call', options, (client, rq, _meta) =>
      client.callTool(
        { name, arguments: args, _meta },
        definition ? { ...rq, toolDefinition: definition } : rq,
      ),
    );
    return normalizeToolResult(raw, tool ? this.outputValidator(tool) : undefined);
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.run('resources/read', options, (client, rq) =>
      client.readResource({ uri }, { ...rq, cacheMode: 'bypass' }),
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
    options: CallOptions = {},
  ): Promise<T> {
    return this.run(method, options, async (client, rq, meta) => {
      const own = (params._meta ?? {}) as Record<string, unknown>;
      const raw = await client.request(
        { method, params: { ...params, _meta: { ...meta, ...own } } },
        passthroughSchema,
        rq,
      );
      return parse(raw);
    });
  }

  // ---- internals: tasks ----------------------------------------------------------------------

  private shouldRunAsTask(tool: Tool | undefined, options: ToolCallOptions): boolean {
    const era = this.era;
    const wanted = options.task !== undefined && options.task !== false;
    if (!era || !serverSupportsToolTasks(this.capabilities, era)) return false;
    if (era === 'modern') return wanted;
    const support = tool ? toolTaskSupport(tool) : 'forbidden';
    return support === 'required' || (support === 'optional' && wanted);
  }

  /** Tasks are ours: SDK v2 removed them (see task-runner.ts for the wire formats). */
  private callToolAsTask(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<Record<string, unknown>> {
    const ttlMs = typeof options.task === 'object' ? options.task.ttlMs : undefined;
    const handlers = {
      elicitation: this.options.elicitation ?? declineElicitation,
      ...(this.options.sampling && { sampling: this.options.sampling }),
      roots: () => resolveRoots(this.config.roots, this.options.cwd ?? process.cwd()),
    };
    const signal = options.signal ?? new AbortController().signal;
    return runToolAsTask(
      {
        request: (method, params, rpc) =>
          this.request(method, params, untunnelTaskResult, {
            ...(rpc.signal && { signal: rpc.signal }),
            timeoutMs: rpc.timeoutMs ?? this.config.timeouts.requestMs,
          }),
      },
      {
        era: this.era ?? 'legacy',
        toolName: name,
        arguments: args,
        ...(ttlMs !== undefined && { ttlMs }),
        ...(options.signal && { signal: options.signal }),
        ...(options.onTaskStatus && { onStatus: options.onTaskStatus }),
        clientCapabilities: { ...this.clientCapabilities() },
        onInputRequests: (requests) =>
          this.interactively(() => answerInputRequests(requests, handlers, this.requestContext(signal))),
      },
    );
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
        const retry = this.recovery(error, plan, identity);
        if (!retry) throw error;
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
      this.setState('disconnected', failure);
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

  /** Decides whether a failed first attempt deserves one more, and how. */
  private recovery(
    error: unknown,
    plan: EraPlan,
    identity: string,
  ): { attempt: Attempt; reason: string } | undefined {
    const sw = error instanceof SwitchboardError ? error : undefined;
    if (
      sw?.code === 'SPAWN_FAILED' ||
      sw?.code === 'ENV_VAR_MISSING' ||
      sw?.code === 'PROTOCOL_VERSION_UNSUPPORTED'
    )
      return undefined;
    if (plan.prior) {
      // A stale cached verdict: forget it and negotiate afresh.
      this.eraStore.delete(identity);
      const { prior: _drop, ...fresh } = plan;
      return { attempt: { plan: fresh }, reason: 'the cached protocol verdict no longer holds' };
    }
    const transport = this.config.transport;
    if (
      this.config.protocol.kind === 'auto' &&
      transport.kind === 'stdio' &&
      sw?.code === 'CONNECT_FAILED' &&
      sw.details.exited
    ) {
      // Servers built on older SDKs exit on an unknown pre-initialize request: a legacy server.
      return {
        attempt: { plan: { ...plan, prior: { kind: 'legacy' } } },
        reason: 'the server exited on server/discover',
      };
    }
    const status = sw?.details.status;
    if (
      transport.kind === 'http' &&
      (this.config.protocol.kind === 'auto' || this.config.protocol.kind === 'legacy') &&
      typeof status === 'number' &&
      status >= 400 &&
      status < 500 &&
      status !== 401 &&
      status !== 403
    ) {
      // Spec (2025-03-26, backwards compatibility): a 4xx on the initial POST means an old
      // HTTP+SSE server; try GET for the SSE endpoint.
      return {
        attempt: {
          plan: { negotiation: { mode: 'legacy' }, supportedVersions: plan.supportedVersions },
          sse: true,
        },
        reason: `HTTP ${status} from Streamable HTTP; trying the legacy HTTP+SSE transport`,
      };
    }
    return undefined;
  }

  private async attempt(attempt: Attempt): Promise<void> {
    const transport = this.createTransport(attempt.sse === true);
    const client = this.buildClient(attempt.plan);
    let offered: string | undefined;
    // Pre-set handlers are chained by the SDK's connect: this one notes the version the
    // server offers, to name it if we cannot speak it.
    transport.onmessage = (message: JSONRPCMessage) => {
      const m = message as {
        method?: string;
        params?: Progress & { progressToken?: unknown };
        result?: { protocolVersion?: unknown };
      };
      if (m.method === 'notifications/progress' && typeof m.params?.progressToken === 'string') {
        const { progress, total, message: text } = m.params;
        this.progressHandlers.get(m.params.progressToken)?.({
          progress,
          ...(total !== undefined && { total }),
          ...(text !== undefined && { message: text }),
        });
        return;
      }
      if (typeof m.result?.protocolVersion === 'string') offered = m.result.protocolVersion;
      tunnelTaskResult(message);
    };
    try {
      await client.connect(transport, {
        timeout: this.config.timeouts.connectMs,
        ...(attempt.plan.prior && { prior: attempt.plan.prior }),
      });
    } catch (error) {
      // Classify first: closing the transport ourselves would look like the server exiting.
      const failure = this.connectError(error, transport, attempt.plan, offered);
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw failure;
    }
    const negotiated = client.getNegotiatedProtocolVersion();
    if (attempt.plan.pinned !== undefined && negotiated !== attempt.plan.pinned) {
      await client.close().catch(() => undefined);
      throw versionError(this.name, negotiated ?? offered ?? 'none', [attempt.plan.pinned]);
    }
    client.onclose = () => this.handleClosed(client, transport);
    this.client = client;
    this.transport = transport;
    this.lists.clear();
  }

  private connectError(
    error: unknown,
    transport: Transport,
    plan: EraPlan,
    offered: string | undefined,
  ): SwitchboardError {
    return classifyConnectFailure({
      server: this.name,
      error,
      plan,
      connectMs: this.config.timeouts.connectMs,
      ...(offered !== undefined && { offered }),
      ...(transport instanceof StdioTransport &&
        transport.exitInfo && { exit: transport.exitInfo, stderrTail: transport.recentStderr }),
      ...(transport instanceof HttpTransport &&
        transport.lastFailure && { httpFailure: transport.lastFailure }),
    });
  }

  private createTransport(sse: boolean): Transport {
    const env = this.options.env ?? process.env;
    const t = this.config.transport;
    const site = { server: this.name, field: '' };
    if (t.kind === 'stdio') {
      return new StdioTransport({
        command: interpolate(t.command, env, { ...site, field: 'command' }),
        args: t.args.map((a, i) => interpolate(a, env, { ...site, field: `args[${i}]` })),
        env: buildChildEnv(env, interpolateRecord(t.env, env, { ...site, field: 'env' })),
        ...(t.cwd !== undefined && { cwd: interpolate(t.cwd, env, { ...site, field: 'cwd' }) }),
        onSpawn: (pid) => this.log('lifecycle', 'info', `started process ${pid}`),
        onStderrLine: (line) => this.log('stderr', 'info', line),
        onStdoutNoise: (line) => this.log('stdout', 'warning', `not JSON-RPC, ignored: ${line}`),
      });
    }
    const http = {
      url: interpolate(t.url, env, { ...site, field: 'url' }),
      headers: interpolateRecord(t.headers, env, { ...site, field: 'headers' }),
    };
    return sse || t.kind === 'sse' ? createSseTransport(http) : new HttpTransport(http);
  }

  private buildClient(plan: EraPlan): Client {
    const capabilities = this.clientCapabilities();
    const onChanged = (kind: ListKind) => () => this.onListChanged(kind);
    const client = new Client(this.options.clientInfo ?? CLIENT_INFO, {
      capabilities,
      versionNegotiation: plan.negotiation,
      supportedProtocolVersions: [...plan.supportedVersions],
      listMaxPages: this.pageCap(),
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('tools') },
        resources: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('resources') },
        prompts: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('prompts') },
      },
    });
    const roots = resolveRoots(this.config.roots, this.options.cwd ?? process.cwd());
    client.setRequestHandler('roots/list', async () => ({ roots }));
    const elicit = this.options.elicitation ?? declineElicitation;
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      this.interactively(() => elicit(request.params, this.requestContext(ctx.mcpReq.signal))),
    );
    const sampling = this.options.sampling;
    if (sampling) {
      client.setRequestHandler('sampling/createMessage', (request, ctx) =>
        this.interactively(() => sampling(request.params, this.requestContext(ctx.mcpReq.signal))),
      );
    }
    client.setNotificationHandler('notifications/message', (n) => {
      const { level, logger, data } = n.params;
      this.log('server', level, typeof data === 'string' ? data : JSON.stringify(data), logger);
    });
    client.fallbackNotificationHandler = async (n) => {
      this.options.onEvent?.({
        server: this.name,
        method: n.method,
        params: n.params,
        receivedAt: new Date(),
      });
    };
    client.onerror = (error) => this.log('lifecycle', 'debug', `transport: ${describeError(error)}`);
    return client;
  }

  private clientCapabilities(): ClientCapabilities {
    return {
      roots: { listChanged: true },
      // applyDefaults: SEP-1034 defaults are filled in on accept.
      elicitation: { form: { applyDefaults: true }, url: {} },
      ...(this.options.sampling && { sampling: {} }),
    };
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
    this.lists.clear();
    if (this.currentState !== 'connected') return;
    const exit = transport instanceof StdioTransport ? transport.exitInfo : undefined;
    const how = exit ? ` (exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})` : '';
    const error = new SwitchboardError(
      'UPSTREAM_DISCONNECTED',
      `Server "${this.name}" disconnected${how}. Reconnect to start it again; see its log for the cause.`,
      { details: { server: this.name, ...(exit && { exitCode: exit.code, signal: exit.signal }) } },
    );
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
    const controller = new AbortController();
    const budget = options.timeoutMs ?? this.config.timeouts.requestMs;
    let timedOut = false;
    const deadline = new Deadline(budget, () => {
      timedOut = true;
      controller.abort('timeout');
    });
    for (let i = 0; i < this.interactive; i++) deadline.pause();
    this.deadlines.add(deadline);
    const userSignal = options.signal;
    const onAbort = () => controller.abort('cancelled');
    if (userSignal?.aborted) onAbort();
    else userSignal?.addEventListener('abort', onAbort, { once: true });
    // Progress is routed by our own token, read straight off the transport: the SDK dispatches
    // notifications a tick after responses, so its handler loses the last progress event.
    const progressToken = `sb-${++this.progressCounter}`;
    this.progressHandlers.set(progressToken, (p) => {
      deadline.reset();
      options.onProgress?.(p);
    });
    try {
      const meta: RequestMeta = { progressToken };
      if (this.era === 'modern') meta[LOG_LEVEL_META_KEY] = this.options.logLevel ?? 'info';
      return await fn(client, { signal: controller.signal, timeout: NO_SDK_TIMEOUT }, meta);
    } catch (error) {
      if (timedOut) {
        throw new SwitchboardError(
          'REQUEST_TIMEOUT',
          `Server "${this.name}" did not answer ${method} within ${Math.round(budget / 1000)} s; the request was cancelled. Raise timeouts.request for this server if it is just slow.`,
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
      const mapped = mapSdkError(error, this.name, method);
      if (!retried && this.isExpiredSession(mapped, client)) {
        await this.reinitialize(client);
        return this.run(method, options, fn, true);
      }
      throw mapped;
    } finally {
      this.progressHandlers.delete(progressToken);
      deadline.clear();
      this.deadlines.delete(deadline);
      userSignal?.removeEventListener('abort', onAbort);
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
    const method = LIST_METHODS[kind];
    return this.run(method.name, {}, async (client, rq) => {
      const opts = { ...rq, cacheMode: 'refresh' as const };
      try {
        const result = (await method.all(client, opts)) as Record<string, unknown>;
        return { items: result[method.field] as T[], truncated: false };
      } catch (error) {
        if (!(error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded)) throw error;
      }
      // The server kept paging past the cap: keep what the cap allows and say so.
      const items: T[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < this.pageCap(); page++) {
        const result = (await client.request(
          { method: method.name, params: cursor === undefined ? {} : { cursor } },
          passthroughSchema,
          rq,
        )) as Record<string, unknown>;
        items.push(...((result[method.field] as T[] | undefined) ?? []));
        cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
        if (cursor === undefined) return { items, truncated: false };
      }
      this.log(
        'lifecycle',
        'warning',
        `${method.name}: stopped after ${this.pageCap()} pages; the list is incomplete`,
      );
      return { items, truncated: true };
    });
  }

  private onListChanged(kind: ListKind): void {
    this.lists.invalidate(kind);
    if (kind === 'resources') this.lists.invalidate('resourceTemplates');
    this.emit('listChanged', kind);
  }

  private outputValidator(tool: Tool): OutputValidator | undefined {
    if (this.validators.has(tool)) return this.validators.get(tool);
    let validator: OutputValidator | undefined;
    if (tool.outputSchema) {
      try {
        const check = this.ajv.getValidator(
          tool.outputSchema as Parameters<AjvJsonSchemaValidator['getValidator']>[0],
        );
        validator = (value) => {
          const result = check(value);
          return result.valid ? undefined : (result.errorMessage ?? 'does not match the output schema');
        };
      } catch (error) {
        const reason = `the tool's outputSchema cannot be compiled: ${describeError(error)}`;
        validator = () => reason;
      }
    }
    this.validators.set(tool, validator);
    return validator;
  }

  /** Runs a user-facing handler with every request deadline paused. */
  private async interactively<T>(fn: () => Promise<T>): Promise<T> {
    this.interactive++;
    for (const d of this.deadlines) d.pause();
    try {
      return await fn();
    } finally {
      this.interactive--;
      for (const d of this.deadlines) d.resume();
    }
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

/** A schema that accepts any result: for methods whose shape the caller checks. */
const passthroughSchema = {
  '~standard': {
    version: 1 as const,
    vendor: 'switchboard',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

type ListCall = (client: Client, options: RequestOptions & { cacheMode: 'refresh' }) => Promise<unknown>;

const LIST_METHODS: Record<ListKind, { name: string; field: string; all: ListCall }> = {
  tools: { name: 'tools/list', field: 'tools', all: (c, o) => c.listTools(undefined, o) },
  resources: { name: 'resources/list', field: 'resources', all: (c, o) => c.listResources(undefined, o) },
  resourceTemplates: {
    name: 'resources/templates/list',
    field: 'resourceTemplates',
    all: (c, o) => c.listResourceTemplates(undefined, o),
  },
  prompts: { name: 'prompts/list', field: 'prompts', all: (c, o) => c.listPrompts(undefined, o) },
};

/**
 * SDK v2 rejects a 2026-07-28 `tools/call` answer with `resultType: "task"` (the Tasks
 * extension's CreateTaskResult) and loses the task id. Our pre-handler sees every message
 * before the SDK does, so it parks such a result under `_meta` of a plain complete result, in
 * place; `untunnelTaskResult` restores it for the task runner.
 */
const TASK_TUNNEL_KEY = 'dev.switchboard/create-task-result';

function tunnelTaskResult(message: JSONRPCMessage): void {
  const m = message as { result?: Record<string, unknown> };
  if (m.result?.resultType !== 'task') return;
  m.result = { resultType: 'complete', content: [], _meta: { [TASK_TUNNEL_KEY]: m.result } };
}

function untunnelTaskResult(raw: unknown): Record<string, unknown> {
  const result = (raw ?? {}) as Record<string, unknown>;
  const meta = result._meta as Record<string, unknown> | undefined;
  const parked = meta?.[TASK_TUNNEL_KEY];
  return typeof parked === 'object' && parked !== null ? (parked as Record<string, unknown>) : result;
}

function stripOutputSchema(tool: Tool): Tool {
  if (!tool.outputSchema) return tool;
  const { outputSchema: _omit, ...rest } = tool;
  return rest as Tool;
}
