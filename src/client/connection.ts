import {
  type CallToolResult,
  type Client,
  type GetPromptResult,
  type Implementation,
  LOG_LEVEL_META_KEY,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { describeError, SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import { countReconnect } from '../core/telemetry/counters.js';
import {
  GEN_AI_TOOL_NAME,
  SPAN_RECONNECT,
  SPAN_TASK,
  SWITCHBOARD_RECONNECT_REASON,
  SWITCHBOARD_SERVER,
} from '../core/telemetry/semconv.js';
import { stepSpan } from '../core/telemetry/step-span.js';
import { traceMetaOf, withoutTraceMeta } from '../core/telemetry/trace-context.js';
import { type AttemptWiring, openSession, type Session } from './connect-attempt.js';
import { ConnectionDrops } from './connection-drops.js';
import type {
  CallOptions,
  ConnectionEvents,
  ConnectionOptions,
  ConnectionState,
  LogEntry,
  ToolCallOptions,
} from './connection-types.js';
import { type EraVerdictStore, isModernVersion, MemoryEraVerdictStore, planEra } from './era.js';
import { mapSdkError } from './error-mapping.js';
import { establishSession } from './establish-session.js';
import { findByName, ListCache, type ListKind, type ListSnapshot } from './list-cache.js';
import { fetchList, LIST_METHODS } from './list-fetch.js';
import { OutputValidators } from './output-validators.js';
import { passthroughSchema } from './passthrough-schema.js';
import { RequestRunner } from './request-runner.js';
import type { RequestAbout } from './request-span.js';
import { normalizeToolResult, type ToolResult } from './results.js';
import { resolveRoots } from './roots.js';
import { tracedElicitation, tracedSampling } from './server-request-spans.js';
import {
  answerInputRequests,
  declineElicitation,
  type ServerRequestContext,
  type ServerRequestHandlers,
} from './server-requests.js';
import { ConnectionSkills } from './skills.js';
import { runCallAsTask, shouldRunAsTask, untunnelTaskResult } from './tool-tasks.js';
import { HttpTransport } from './transports/http.js';
import { SseTransport } from './transports/sse.js';
import { TypedEmitter } from './typed-emitter.js';

/**
 * One live connection to one MCP server, in any era and over any transport. It wraps the
 * SDK's `Client` (which speaks the protocol) with what a host needs around it: our own
 * transports, era negotiation with a cached verdict (establish-session.ts), pausable
 * timeouts and typed errors (request-runner.ts), cached lists refreshed on `list_changed`,
 * normalized results, and log/event sinks.
 */

const CLIENT_INFO: Implementation = { name: 'switchboard', version: '0.1.0' };
const defaultEraStore = new MemoryEraVerdictStore();

export class Connection extends TypedEmitter<ConnectionEvents> {
  readonly name: string;
  private readonly config: ServerConfig;
  private readonly eraStore: EraVerdictStore;
  private readonly lists = new ListCache();
  private readonly handlers: ServerRequestHandlers;
  private readonly validators = new OutputValidators();
  private readonly runner: RequestRunner;
  /** The server's skills (MCP Skills extension): listed, fetched and read verified (skills.ts). */
  readonly skills: ConnectionSkills;
  private client?: Client;
  private transport?: Transport;
  /** The live session: its client, transport, tap and direct lane. */
  private session?: Session;
  /** The transport of a connect attempt under way, so close() can cut it short. */
  private connectingTransport?: Transport;
  /** Failed connect attempts still ending what they started; close() waits for them. */
  private attemptsEnding: Promise<void> = Promise.resolve();
  private connecting?: Promise<void>;
  private reinitializing?: Promise<void>;
  private readonly drops = new ConnectionDrops();
  private currentState: ConnectionState = 'idle';

  constructor(private readonly options: ConnectionOptions) {
    super();
    this.config = options.config;
    this.name = options.config.name;
    this.eraStore = options.eraStore ?? defaultEraStore;
    const roots = resolveRoots(options.config.roots, options.defaultRoots);
    this.handlers = {
      elicitation: tracedElicitation(options.elicitation ?? declineElicitation),
      ...(options.sampling && { sampling: tracedSampling(options.sampling) }),
      roots: (ctx) => (options.roots ? options.roots(ctx, roots) : roots),
    };
    this.runner = new RequestRunner({
      name: this.name,
      requestMs: this.config.timeouts.requestMs,
      client: (method) => this.requireClient(method),
      // 2026-07-28 servers log only when asked; ask only when someone reads the logs.
      decorate: (meta) => {
        if (this.options.onLog && this.era === 'modern')
          meta[LOG_LEVEL_META_KEY] = this.options.logLevel ?? 'info';
      },
      recover: (error, client) => this.recover(error, client),
      explain: (error, client, method) => this.drops.cutOff(error, client, method),
      facts: () => ({
        server: this.name,
        protocolVersion: this.protocolVersion,
        transport: this.config.transport.kind === 'stdio' ? 'pipe' : 'tcp',
        sessionId: this.transport?.sessionId,
      }),
    });
    this.skills = new ConnectionSkills({
      name: this.name,
      runner: this.runner,
      capabilities: () => this.capabilities,
      walks: () => this.session?.tap.walks,
      pageCap: () => this.pageCap(),
      warn: (text) => this.log('lifecycle', 'warning', text),
    });
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
    this.session = undefined;
    this.connectingTransport = undefined;
    this.lists.clear();
    this.skills.invalidate();
    // A handshake under way is cut short: its transport closes, the connect rejects.
    await Promise.all([
      client?.close().catch(() => undefined),
      connecting?.close().catch(() => undefined),
      // A dropped transport may still be ending what its server left running.
      this.drops.ending,
      // So may the transport of a connect attempt that failed.
      this.attemptsEnding,
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
    const wantsTask = options.task === undefined ? undefined : options.task !== false;
    const optionalAsTask = this.config.optionalTasks === 'task';
    if (shouldRunAsTask(this.era, this.capabilities, tool, wantsTask, optionalAsTask)) {
      const raw = await this.callToolAsTask(name, args, options);
      return normalizeToolResult(raw as CallToolResult, tool ? this.validators.for(tool) : undefined);
    }
    // Validation of the output is ours (tool-list-store.ts); the lane is callTool's (direct-requests.ts).
    const direct = this.session?.direct;
    const raw = await this.runner.run(
      'tools/call',
      options,
      (client, rq, _meta) => {
        const params = { name, arguments: args, _meta };
        return direct
          ? (direct.call(client, 'tools/call', params, rq) as Promise<CallToolResult>)
          : client.callTool(params, rq);
      },
      { tool: name },
    );
    return normalizeToolResult(raw, tool ? this.validators.for(tool) : undefined);
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.runner.run(
      'resources/read',
      options,
      (client, rq, _meta) => client.readResource({ uri, _meta }, { ...rq, cacheMode: 'bypass' }),
      { uri },
    );
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.runner.run(
      'prompts/get',
      options,
      (client, rq, _meta) => client.getPrompt({ name, arguments: args, _meta }, rq),
      { prompt: name },
    );
  }

  /** Checks the server answers: `ping` on legacy connections; 2026-07-28 has no ping, so `server/discover`. */
  async ping(options: CallOptions = {}): Promise<void> {
    if (this.era === 'modern')
      await this.runner.run('server/discover', options, (client, rq) => client.discover(rq));
    else await this.runner.run('ping', options, (client, rq) => client.ping(rq));
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
    return this.runner.run(
      method,
      options,
      async (client, rq, meta) => {
        // Our span's trace context wins over any a relayed `_meta` brought: the upstream's span is ours to parent.
        const sent = {
          ...params,
          _meta: { ...meta, ...withoutTraceMeta(params._meta), ...traceMetaOf(meta) },
        };
        const direct = options.allowInputRequired ? this.session?.direct : undefined;
        if (direct) return parse(await direct.request(method, sent, rq.signal!));
        const relaying = options.allowInputRequired ? { ...rq, allowInputRequired: true } : rq;
        return parse(await client.request({ method, params: sent }, passthroughSchema, relaying));
      },
      requestAbout(method, params),
    );
  }

  // ---- internals: tasks ----------------------------------------------------------------------

  /** Tasks are ours: SDK v2 removed them (see task-runner.ts for the wire formats). */
  private callToolAsTask(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<Record<string, unknown>> {
    const context = this.requestContext(options.signal ?? new AbortController().signal);
    // One span over the task's life; its create, polls and result fetch are CLIENT spans in it.
    return stepSpan(
      SPAN_TASK,
      { attributes: () => ({ [SWITCHBOARD_SERVER]: this.name, [GEN_AI_TOOL_NAME]: name }) },
      () => this.followTask(name, args, options, context),
    );
  }

  private followTask(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
    context: ServerRequestContext,
  ): Promise<Record<string, unknown>> {
    return runCallAsTask(name, args, options, {
      era: this.era ?? 'legacy',
      requestTimeoutMs: this.config.timeouts.requestMs,
      handlers: this.handlers,
      apps: this.options.apps === true,
      send: (method, params, rq) => this.request(method, params, untunnelTaskResult, rq),
      answer: (requests) =>
        this.runner.deadlines.whilePaused(() => answerInputRequests(requests, this.handlers, context)),
    });
  }

  // ---- internals: connect ------------------------------------------------------------------

  private async establish(): Promise<void> {
    this.setState('connecting');
    let session: Session;
    try {
      session = await establishSession({
        ...this.attemptWiring(),
        eraStore: this.eraStore,
        probeTimeoutMs: this.probeTimeoutMs(),
      });
    } catch (error) {
      const failure = error instanceof SwitchboardError ? error : mapSdkError(error, this.name, 'connect');
      this.log('lifecycle', 'error', `connect failed: ${failure.message}`);
      if (this.currentState !== 'closed') this.setState('disconnected', failure);
      throw failure;
    }
    this.adopt(session);
    const level = this.options.logLevel;
    if (level && this.era === 'legacy' && this.capabilities?.logging) {
      await this.client?.setLoggingLevel(level).catch((error: unknown) => {
        this.log('lifecycle', 'warning', `logging/setLevel ${level} failed: ${describeError(error)}`);
      });
    }
    this.log('lifecycle', 'info', `connected (${this.protocolVersion})`);
    this.setState('connected');
  }

  /** What a connect attempt needs of this connection. */
  private attemptWiring(): AttemptWiring {
    return {
      config: this.config,
      options: this.options,
      handlers: this.handlers,
      runner: this.runner,
      pageCap: this.pageCap(),
      clientInfo: this.options.clientInfo ?? CLIENT_INFO,
      log: (source, level, text, logger) => this.log(source, level, text, logger),
      context: (signal) => this.requestContext(signal),
      onListChanged: (kind) => this.onListChanged(kind),
      connecting: (transport) => {
        this.connectingTransport = transport;
      },
      closed: () => this.currentState === 'closed',
      ending: (closing) => {
        const before = this.attemptsEnding;
        this.attemptsEnding = Promise.all([before, closing]).then(() => undefined);
      },
    };
  }

  /** Takes a connected session into use. */
  private adopt(session: Session): void {
    const { client, transport } = session;
    client.onclose = () => this.handleClosed(client, transport);
    this.client = client;
    this.transport = transport;
    this.session = session;
    this.lists.clear();
    this.skills.invalidate();
  }

  private handleClosed(client: Client, transport: Transport): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.transport = undefined;
    this.session = undefined;
    this.lists.clear();
    this.skills.invalidate();
    if (this.currentState !== 'connected') return;
    const error = this.drops.dropped(this.name, client, transport);
    this.log('lifecycle', 'warning', error.message);
    this.setState('disconnected', error);
    this.emit('disconnected', error);
  }

  // ---- internals: requests -------------------------------------------------------------------

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

  /**
   * HTTP 404 on a request that carried a legacy session id: the session expired (spec:
   * re-initialize). A new session is started once, and the request goes again. A legacy
   * HTTP+SSE server answers 404 to a POST of a session it forgot (a restart behind a
   * balancer, an expiry): the 2024-11-05 spec says nothing of it, and a 404 means the message
   * was not taken, so it is recovered the same way (a new event stream and initialize).
   */
  private async recover(error: SwitchboardError, client: Client): Promise<boolean> {
    const transport = this.transport;
    const expired =
      error.code === 'UPSTREAM_HTTP' &&
      error.details.status === 404 &&
      client === this.client &&
      ((transport instanceof HttpTransport && transport.sessionId !== undefined) ||
        transport instanceof SseTransport);
    if (!expired) return false;
    await this.reinitialize(client);
    return true;
  }

  private reinitialize(stale: Client): Promise<void> {
    // A reconnect of its own kind: a span under the request that found the session gone, and counted.
    const reason = 'session_expired';
    this.reinitializing ??= stepSpan(
      SPAN_RECONNECT,
      { attributes: () => ({ [SWITCHBOARD_SERVER]: this.name, [SWITCHBOARD_RECONNECT_REASON]: reason }) },
      () => this.openNewSession(stale),
    )
      .then(
        () => countReconnect(this.name, reason, 'ok'),
        (error: unknown) => {
          countReconnect(this.name, reason, 'error');
          throw error;
        },
      )
      .finally(() => {
        this.reinitializing = undefined;
      });
    return this.reinitializing;
  }

  private async openNewSession(stale: Client): Promise<void> {
    this.log('lifecycle', 'info', 'HTTP session expired (404); starting a new session');
    const old = this.transport;
    this.client = undefined;
    await stale.close().catch(() => undefined);
    await old?.close().catch(() => undefined);
    const plan = {
      negotiation: { mode: 'legacy' as const },
      supportedVersions: planEra(this.config.protocol, undefined, 0, 0).supportedVersions,
    };
    this.adopt(await openSession({ plan }, this.attemptWiring()));
  }

  private async cachedList<T>(kind: ListKind): Promise<ListSnapshot<T>> {
    return this.lists.get<T>(kind, () => this.fetchList<T>(kind));
  }

  private async fetchList<T>(kind: ListKind): Promise<ListSnapshot<T>> {
    const caps = this.requireClient(`${kind} list`).getServerCapabilities();
    const supported = kind === 'tools' ? caps?.tools : kind === 'prompts' ? caps?.prompts : caps?.resources;
    const walks = this.session?.tap.walks;
    if (!supported || !walks) return { items: [], truncated: false };
    const list = await this.runner.run(LIST_METHODS[kind].name, {}, (client, rq) =>
      fetchList<T>(client, kind, rq, walks, this.pageCap()),
    );
    const cut = list.truncation;
    if (cut) {
      const why =
        cut.reason === 'cursor-loop'
          ? 'the server handed back a cursor already followed'
          : `the server still had pages after ${cut.pages}`;
      this.log(
        'lifecycle',
        'warning',
        `${LIST_METHODS[kind].name}: stopped after ${cut.pages} pages (${why}); the list is incomplete (${list.items.length} items)`,
      );
    }
    return list;
  }

  /** A list changed: drop it, fetch it again at once, then tell listeners (with the new list). */
  private onListChanged(kind: ListKind): void {
    this.lists.invalidate(kind);
    // A server announces a change of its skills as one of its resources (SEP-2640).
    if (kind === 'resources') {
      this.lists.invalidate('resourceTemplates');
      this.skills.invalidate();
    }
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

/** The target of a request sent through `request` (a relayed call or prompt), for its span. */
function requestAbout(method: string, params: Record<string, unknown>): RequestAbout | undefined {
  const name = typeof params.name === 'string' ? params.name : undefined;
  if (method === 'tools/call' && name !== undefined) return { tool: name };
  if (method === 'prompts/get' && name !== undefined) return { prompt: name };
  return typeof params.uri === 'string' ? { uri: params.uri } : undefined;
}
