import { homedir } from 'node:os';
import { join } from 'node:path';
import type {
  CallToolResult,
  GetPromptResult,
  ReadResourceResult,
  ServerCapabilities,
} from '@modelcontextprotocol/client';
import type { CredentialStore } from '../client/auth/credential-store.js';
import { FileCredentialStore } from '../client/auth/file-credential-store.js';
import type { Connection } from '../client/connection.js';
import type { CallOptions, ConnectionOptions, LogEntry, ServerEvent } from '../client/connection-types.js';
import { type RelayAnswer, type RelayedRequest, relayRequest } from '../client/relay.js';
import { normalizeToolResult, type ToolResult } from '../client/results.js';
import { TypedEmitter } from '../client/typed-emitter.js';
import { type GovernanceConfig, resolveGovernance } from '../core/config/governance-config.js';
import { describeError, SwitchboardError } from '../core/errors.js';
import { normalizeServerEntry, type ServerConfig } from '../core/server-config.js';
import { openStore } from '../storage/open-store.js';
import type { AuditPage, EventPage, GrantRepository, Store, StoredEvent } from '../storage/ports.js';
import { type HostLoginOptions, loginServer } from './auth/host-login.js';
import { watchLogins } from './auth/login-watch.js';
import { CallerRelay } from './caller-relay.js';
import type { CatalogSnapshot, RejectedTool } from './catalog/catalog.js';
import { CatalogKeeper } from './catalog/catalog-keeper.js';
import { openStoreCredentialStore } from './credentials/store-credential-store.js';
import { persistentEraVerdicts } from './era-verdicts.js';
import { EventFeed } from './event-feed.js';
import { type AskApproval, Governor } from './governance/governor.js';
import { checkUpstreamUrl } from './governance/network-guard.js';
import { type GovernedStart, type HostCallOptions, runGoverned } from './governed-call.js';
import { type GuardContext, guardedPrompt, guardedResource } from './guarded-content.js';
import { MANAGEMENT_SERVER } from './management/management-tools.js';

export type { HostCallOptions } from './governed-call.js';

import { Inbox } from './inbox/inbox.js';
import { approvalThroughInbox, elicitationThroughInbox } from './inbox/inbox-adapters.js';
import { latestValues } from './latest-values.js';
import { LogFiles } from './logs/log-files.js';
import { createMediaHandler, type MediaHandler } from './media/media-handler.js';
import { MediaStore } from './media/media-store.js';
import { type RenderedResult, renderResultWithMedia } from './media/media-text.js';
import { secretsOf } from './secrets.js';
import { type ServerSnapshot, Supervisor } from './supervisor/supervisor.js';

/**
 * The Host: many connections as one living system. It keeps configured and registered servers
 * connected (Supervisor), aggregates what they offer (catalog), persists what must survive a
 * restart (registrations, events, pins, era verdicts), writes per-server logs, and routes
 * calls. Governance plugs in through the call hooks; nothing here decides policy.
 */
export interface HostOptions {
  /** Where the store and logs live. Default `~/.switchboard`. */
  readonly dataDir?: string;
  /** A PostgreSQL URL (`postgres://…`) for the store; default: SQLite `switchboard.db` in the data dir. */
  readonly database?: string;
  /** Start only these servers (a one-shot command needs one); default all. */
  readonly only?: readonly string[];
  /** Servers from configuration files (registrations in the store are added to them). */
  readonly servers?: readonly ServerConfig[];
  /** Where each of `servers` came from (a file path), by name; shown in the status. */
  readonly sources?: Readonly<Record<string, string>>;
  /** Passed to every connection (elicitation, sampling handlers…). */
  readonly connection?: Omit<ConnectionOptions, 'config' | 'eraStore' | 'onLog' | 'onEvent'>;
  readonly firstConnectDelaysMs?: readonly number[];
  /** Where media files are served from (the gateway mounts `mediaHandler()` there). */
  readonly mediaBaseUrl?: string;
  /** Approval mode, profile, rules and scanning (the config file's `governance` section). */
  readonly governance?: Partial<GovernanceConfig>;
  /** Who answers `ask` decisions. Default: the host's Inbox. */
  readonly askApproval?: AskApproval;
  /**
   * Where OAuth credentials live: files under `<dataDir>/credentials` (0600) by default; with a
   * PostgreSQL `database`, or `'store'`, the store, encrypted (`openStoreCredentialStore`).
   */
  readonly credentials?: CredentialStore | 'store';
}

/** What hooks learn of a call. `session` is whatever the caller passed (the agent's session). */
export interface HookCall {
  readonly name: string;
  readonly server: string;
  readonly tool: string;
  readonly session?: string;
}

/** Runs around every tool call: policy and audit plug in here. */
export interface CallHooks {
  /** May throw to refuse the call (policy); runs before anything is sent upstream. */
  before?(call: HookCall & { readonly args: Record<string, unknown> }): Promise<void> | void;
  after?(
    call: HookCall & { readonly durationMs: number; readonly result?: ToolResult; readonly error?: unknown },
  ): Promise<void> | void;
}

/** A server's status: the supervisor's snapshot, where the entry came from, and its tools the catalog refused. */
export interface ServerStatus extends ServerSnapshot {
  readonly source: string;
  readonly rejectedTools: readonly Pick<RejectedTool, 'tool' | 'reason' | 'detail'>[];
}

export type HostEvents = {
  servers: [snapshots: readonly ServerSnapshot[]];
  catalog: [snapshot: CatalogSnapshot];
  /** A tool's definition differs from the one first seen (pinned); governance decides. */
  tool_changed: [change: { server: string; tool: string; previousHash: string; hash: string }];
  event: [event: ServerEvent];
  /** A line for a server's log: its own log notifications (`source: 'server'`), stderr, lifecycle. */
  log: [entry: LogEntry];
};

export class Host extends TypedEmitter<HostEvents> {
  private readonly hooks: CallHooks[] = [];
  private readonly configs = new Map<string, ServerConfig>();
  private readonly sources = new Map<string, string>();

  private readonly mediaPrune: NodeJS.Timeout;
  private readonly events: EventFeed;
  private readonly keeper: CatalogKeeper;
  private readonly stopLoginWatch: () => void;

  private constructor(
    private readonly store: Store,
    private readonly supervisor: Supervisor,
    private readonly logs: LogFiles,
    private readonly media: MediaStore,
    /** The governed call path: policy, approvals and audit. */
    readonly governor: Governor,
    /** Approvals and elicitations waiting for a person; front-ends attach here. */
    readonly inbox: Inbox,
    private readonly credentials: CredentialStore,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly callers: CallerRelay,
  ) {
    super();
    this.keeper = new CatalogKeeper({
      supervisor,
      configOf: (server) => this.configs.get(server),
      scan: governor.settings.scan,
      pins: store.pins,
      onToolChanged: (change) => {
        governor.noteChanged(change.server, change.tool);
        this.emit('tool_changed', change);
      },
      onPublished: (snapshot) => this.emit('catalog', snapshot),
      onNotice: (server, text) => this.onLog({ ...lifecycle(server), text }),
    });
    this.events = new EventFeed(store.events);
    this.stopLoginWatch = watchLogins({
      credentials,
      servers: () => supervisor.snapshot(),
      subscribe: (listener) => {
        supervisor.on('servers', listener);
        return () => supervisor.off('servers', listener);
      },
      reconnect: (server) => {
        const config = this.configs.get(server);
        if (config) supervisor.reload(server, config);
      },
    });
    // Retention runs now and hourly; unref'd so it never keeps a process alive.
    void media.prune().catch(() => undefined);
    this.mediaPrune = setInterval(() => void media.prune().catch(() => undefined), 60 * 60 * 1000);
    this.mediaPrune.unref();
  }

  /** Opens the store, starts every enabled server in the background, and returns at once. */
  static async create(options: HostOptions = {}): Promise<Host> {
    const dataDir = options.dataDir ?? join(homedir(), '.switchboard');
    const store = await openStore(options.database || join(dataDir, 'switchboard.db'));
    const logs = new LogFiles({ dir: join(dataDir, 'logs') });
    let host: Host | undefined;
    const warn = (text: string) =>
      logs.write('switchboard', { at: new Date(), source: 'lifecycle', level: 'warning', text });
    const eraStore = await persistentEraVerdicts(store.kv, (error) => warn(describeError(error)));
    const settings = resolveGovernance(options.governance);
    const callers = new CallerRelay();
    // On PostgreSQL every instance shares the credentials too: they go in the store, encrypted.
    const inStore =
      options.credentials === 'store' || (options.credentials === undefined && !!options.database);
    const env = options.connection?.env ?? process.env;
    const credentials = inStore
      ? await openStoreCredentialStore({ store, dataDir, env })
      : ((options.credentials as CredentialStore | undefined) ?? new FileCredentialStore({ dataDir }));
    const inbox = new Inbox({ timeoutMs: settings.approvalTimeoutMs });
    const supervisor = new Supervisor({
      connection: {
        // Elicitations go to the client whose call caused them (a gateway client), else to the
        // Inbox; sampling only to such a client. An embedding app's own handlers win.
        elicitation: callers.elicitation(elicitationThroughInbox(inbox)),
        sampling: callers.sampling(),
        roots: callers.roots(),
        credentials,
        ...options.connection,
        eraStore,
        onLog: (entry) => host?.onLog(entry),
        onEvent: (event) => host?.onEvent(event),
      },
      ...(options.firstConnectDelaysMs && { firstConnectDelaysMs: options.firstConnectDelaysMs }),
    });
    const media = new MediaStore({
      dir: join(dataDir, 'media'),
      baseUrl: options.mediaBaseUrl ?? 'http://127.0.0.1/media',
    });
    const governor = await Governor.create({
      settings,
      // The built-in management tools' annotations are ours, so they are believed.
      trustOf: (server) =>
        server === MANAGEMENT_SERVER ? 'trusted' : (host?.configs.get(server)?.trust ?? 'untrusted'),
      store,
      askApproval: options.askApproval ?? approvalThroughInbox(inbox, settings.approvalTimeoutMs),
      onError: (error) => warn(`audit: ${describeError(error)}`),
    });
    host = new Host(store, supervisor, logs, media, governor, inbox, credentials, env, callers);
    supervisor.on('servers', (snaps) => host.onServers(snaps));
    const registered = await store.servers.list();
    const byName = new Map(
      (options.servers ?? []).map((c) => [
        c.name,
        { config: c, enabled: c.enabled, source: options.sources?.[c.name] ?? 'config' },
      ]),
    );
    for (const r of registered) {
      // A toggle of a file-configured server is only its flag: the file's entry stays the truth
      // (later edits of the file count); a toggle whose entry left the file is forgotten.
      if (r.source === 'toggle') {
        const fromFile = byName.get(r.name);
        if (fromFile) byName.set(r.name, { ...fromFile, enabled: r.enabled });
        continue;
      }
      const config = normalizeServerEntry({ ...(r.entry as object), name: r.name });
      byName.set(r.name, { config, enabled: r.enabled, source: r.source });
    }
    for (const { config, enabled, source } of byName.values())
      if (!options.only || options.only.includes(config.name)) host.track(config, enabled, source);
    return host;
  }

  // ---- servers ---------------------------------------------------------------------------

  servers(): readonly ServerStatus[] {
    const rejected = this.keeper.current.rejected;
    return this.supervisor.snapshot().map((snap) => ({
      ...snap,
      source: this.sources.get(snap.name) ?? 'unknown',
      rejectedTools: rejected
        .filter((r) => r.server === snap.name)
        .map(({ tool, reason, detail }) => ({ tool, reason, detail })),
    }));
  }

  /**
   * The server list now and after every change, as an async iterator. A slow consumer skips
   * to the latest list rather than queueing stale ones. Ends when `signal` aborts.
   */
  serverUpdates(signal?: AbortSignal): AsyncGenerator<readonly ServerStatus[]> {
    const subscribe = (onChange: () => void) => {
      this.on('servers', onChange);
      this.on('catalog', onChange);
      return () => {
        this.off('servers', onChange);
        this.off('catalog', onChange);
      };
    };
    return latestValues(subscribe, () => this.servers(), signal);
  }

  /** Registers (or updates) a server, persists it, and connects it at once (unless `enabled: false`). */
  async register(entry: unknown, source = 'api'): Promise<ServerConfig> {
    const config = normalizeServerEntry(entry, { file: source });
    if (config.transport.kind !== 'stdio')
      await checkUpstreamUrl(config.transport.url, this.governor.settings);
    await this.store.servers.upsert({ name: config.name, entry, enabled: config.enabled, source });
    this.track(config, config.enabled, source);
    return config;
  }

  /** Removes a registered server (closing it) and forgets it. */
  async unregister(name: string): Promise<void> {
    await this.store.servers.remove(name);
    this.configs.delete(name);
    this.sources.delete(name);
    await this.supervisor.remove(name);
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const stored = await this.store.servers.get(name);
    if (stored) await this.store.servers.setEnabled(name, enabled);
    else {
      const config = this.configs.get(name);
      if (!config) throw unknownServer(name);
      // A server from a config file: remember only the toggle in the store, keyed by its name.
      await this.store.servers.upsert({ name, entry: {}, enabled, source: 'toggle' });
    }
    await this.supervisor.setEnabled(name, enabled);
  }

  reload(name: string): void {
    if (!this.configs.has(name)) throw unknownServer(name);
    this.supervisor.reload(name, this.configs.get(name));
  }

  /**
   * Logs a server in (OAuth): the browser flow for a person, the grant for a machine client.
   * The tokens are stored and the server reconnected. `print` receives the instructions.
   */
  async login(name: string, options: HostLoginOptions = {}): Promise<void> {
    const config = this.configs.get(name);
    if (!config) throw unknownServer(name);
    await loginServer(config, this.credentials, this.env, options);
    this.supervisor.reload(name, config);
  }

  /** Forgets a server's OAuth credentials; it reconnects and will ask for a login. Returns how many were deleted. */
  async logout(name: string): Promise<number> {
    const config = this.configs.get(name);
    if (!config) throw unknownServer(name);
    const deleted = await this.credentials.delete(name);
    this.supervisor.reload(name, config);
    return deleted;
  }

  /** The normalized config of a server, or undefined. */
  serverConfig(name: string): ServerConfig | undefined {
    return this.configs.get(name);
  }

  /** Lazy-loading grants (the agents layer keeps them here so they survive a restart). */
  get grants(): GrantRepository {
    return this.store.grants;
  }

  // ---- catalog and calls ---------------------------------------------------------------------

  catalog(): CatalogSnapshot {
    return this.keeper.current;
  }

  /** Adds hooks that run before and after every call (governance, audit). */
  useHooks(hooks: CallHooks): void {
    this.hooks.push(hooks);
  }

  /** Calls a catalog tool (`mcp__<server>__<tool>`) on its server. */
  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: HostCallOptions = {},
  ): Promise<ToolResult> {
    return this.governed(name, args, options, (connection, tool) => ({
      run: connection.callTool(tool, args, options),
      result: (r) => r,
    }));
  }

  /**
   * A 2026-07-28 client's `tools/call` relayed for the gateway to a 2026-07-28 server: governed
   * and audited like `callTool`, but the server's `input_required` rounds and tasks go back to
   * that client (client/relay.ts).
   */
  relayToolCall(
    name: string,
    args: Record<string, unknown>,
    relayed: RelayedRequest,
    options: HostCallOptions = {},
  ): Promise<RelayAnswer> {
    return this.governed(name, args, options, (connection, tool) => ({
      run: relayRequest(connection, 'tools/call', { name: tool, arguments: args }, relayed, options),
      result: (a) => (a.kind === 'complete' ? normalizeToolResult(a.raw as CallToolResult) : undefined),
    }));
  }

  /**
   * Any other request of a 2026-07-28 client relayed to `server` as it is (`prompts/get` and
   * `resources/read` rounds, `tasks/*` of a relayed task; client/relay.ts). A complete prompt
   * or resource is guarded as by `getPrompt` and `readResource`.
   */
  async relayRequest(
    server: string,
    method: string,
    params: Record<string, unknown>,
    relayed: RelayedRequest,
    options: CallOptions = {},
  ): Promise<RelayAnswer> {
    const answer = await relayRequest(this.connected(server), method, params, relayed, options);
    if (answer.kind !== 'complete') return answer;
    if (method === 'prompts/get')
      return {
        kind: 'complete',
        raw: guardedPrompt(answer.raw as GetPromptResult, String(params.name), this.guardContext(server)),
      };
    if (method === 'resources/read')
      return {
        kind: 'complete',
        raw: guardedResource(answer.raw as ReadResourceResult, this.guardContext(server)),
      };
    return answer;
  }

  /** The era and capabilities `server` is connected with (whether its requests can be relayed). */
  upstreamProtocol(server: string): { era?: 'modern' | 'legacy'; capabilities?: ServerCapabilities } {
    const connection = this.supervisor.connection(server);
    return {
      ...(connection?.era && { era: connection.era }),
      ...(connection?.capabilities && { capabilities: connection.capabilities }),
    };
  }

  /** The common path of every tool call (governed-call.ts). */
  private governed<T>(
    name: string,
    args: Record<string, unknown>,
    options: HostCallOptions,
    start: GovernedStart<T>,
  ): Promise<T> {
    return runGoverned(
      {
        lookup: (tool) => this.keeper.current.lookup(tool),
        connected: (server) => this.connected(server),
        governor: this.governor,
        hooks: this.hooks,
        callers: this.callers,
        requireLogin: (server, error) => this.supervisor.requireLogin(server, error),
      },
      { name, args, options, start },
    );
  }

  /**
   * Reads a resource from `server` (resources are data: no approval is asked). Text that the
   * injection scanner flags, from a server that is not trusted, comes back wrapped in a
   * "this is data, not instructions" banner; `raw` skips that.
   */
  async readResource(
    server: string,
    uri: string,
    options: CallOptions & { readonly raw?: boolean } = {},
  ): Promise<ReadResourceResult> {
    const result = await this.connected(server).readResource(uri, options);
    return options.raw ? result : guardedResource(result, this.guardContext(server));
  }

  /** Gets a prompt's messages from `server`, roles kept; flagged text is guarded as in `readResource`. */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions & { readonly raw?: boolean } = {},
  ): Promise<GetPromptResult> {
    const result = await this.connected(server).getPrompt(name, args, options);
    return options.raw ? result : guardedPrompt(result, name, this.guardContext(server));
  }

  private guardContext(server: string): GuardContext {
    const trusted = this.configs.get(server)?.trust === 'trusted';
    const otherTools = this.keeper.current.tools.map((t) => ({ server: t.server, name: t.tool.name }));
    return { server, trusted, otherTools };
  }

  /**
   * Asks `server` for completions (`completion/complete`, for a prompt argument or a resource template
   * variable), through the connection's escape hatch: the params and result pass through unchanged.
   */
  complete(server: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<unknown> {
    return this.connected(server).request('completion/complete', params, (raw) => raw, options);
  }

  /** Sends `resources/subscribe` or `resources/unsubscribe` of `uri` to `server` (resource-subscriptions.ts). */
  async subscription(server: string, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string) {
    await this.connected(server).request(method, { uri }, () => undefined);
  }

  /** The audit log, newest first: every decision and call. */
  audit(query: Parameters<Store['audit']['query']>[0] = {}): Promise<AuditPage> {
    return this.store.audit.query(query);
  }

  // ---- events --------------------------------------------------------------------------------

  /** Takes up to `limit` pending server events (they become `delivered`). */
  takeEvents(limit = 100): Promise<StoredEvent[]> {
    return this.events.take(limit);
  }

  ackEvents(ids: readonly number[]): Promise<number> {
    return this.events.ack(ids);
  }

  /** Stored events of any status, newest first, without taking them (the dashboard's listing). */
  recentEvents(query: Parameters<Store['events']['recent']>[0]): Promise<EventPage> {
    return this.store.events.recent(query);
  }

  /** Calls `handler` with each batch of pending events every `intervalMs`; returns a stop function. */
  onEvents(
    handler: (events: StoredEvent[]) => Promise<void> | void,
    options: { intervalMs: number },
  ): () => void {
    return this.events.poll(handler, options);
  }

  /**
   * A result as text for a model: media parts saved under `media/<id>.<ext>` and referenced by
   * URL with type and size, `resource_link`s as markdown links.
   */
  renderResult(result: ToolResult): Promise<RenderedResult> {
    return renderResultWithMedia(result, this.media);
  }

  /** Serves the saved media files (`GET /media/<id>.<ext>`); refuses any other name. */
  mediaHandler(): MediaHandler {
    return createMediaHandler({ store: this.media });
  }

  /** Tools whose definition changed since first seen and was not approved again (pins). */
  changedTools(): Promise<readonly { server: string; tool: string }[]> {
    return this.store.pins.listChanged();
  }

  /** Accepts a tool's current definition as the pinned one. */
  async approveTool(server: string, tool: string, hash: string): Promise<void> {
    await this.store.pins.approve(server, tool, hash);
    this.governor.noteApproved(server, tool);
  }

  /** The log file of a server. */
  logFile(name: string): string {
    return this.logs.pathOf(name);
  }

  /** Closes every server and the store. */
  async close(): Promise<void> {
    clearInterval(this.mediaPrune);
    this.stopLoginWatch();
    this.inbox.close();
    await this.supervisor.stop();
    await this.keeper.stop();
    await this.store.close();
  }

  // ---- internals ------------------------------------------------------------------------------

  private connected(server: string): Connection {
    const connection = this.supervisor.connection(server);
    if (connection) return connection;
    if (!this.configs.has(server)) throw unknownServer(server);
    throw new SwitchboardError(
      'UPSTREAM_DISCONNECTED',
      `Server "${server}" is not connected; try again when it is.`,
      { details: { server } },
    );
  }

  private track(config: ServerConfig, enabled: boolean, source: string): void {
    this.configs.set(config.name, config);
    this.sources.set(config.name, source);
    this.logs.setSecrets(config.name, secretsOf(config));
    this.supervisor.add(config, { enabled });
  }

  private onLog(entry: LogEntry): void {
    this.logs.write(entry.server, entry);
    this.emit('log', entry);
  }

  private onEvent(event: ServerEvent): void {
    this.store.events
      .append({
        server: event.server,
        method: event.method,
        params: event.params,
        receivedAt: event.receivedAt,
      })
      .catch((error: unknown) =>
        this.onLog({ ...lifecycle(event.server), text: `could not store event: ${describeError(error)}` }),
      );
    this.emit('event', event);
  }

  private onServers(snaps: readonly ServerSnapshot[]): void {
    this.emit('servers', snaps);
    this.keeper.schedule();
  }
}

function unknownServer(name: string): SwitchboardError {
  return new SwitchboardError(
    'NOT_FOUND',
    `No server named "${name}". List the servers to see their names.`,
    { details: { server: name } },
  );
}

function lifecycle(server: string): Omit<LogEntry, 'text'> {
  return { server, source: 'lifecycle', level: 'warning', at: new Date() };
}
