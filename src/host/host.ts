import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { CredentialStore } from '../client/auth/credential-store.js';
import type { Connection } from '../client/connection.js';
import type { CallOptions, LogEntry, ServerEvent } from '../client/connection-types.js';
import { type RelayAnswer, type RelayedRequest, relayRequest } from '../client/relay.js';
import { normalizeToolResult, type ToolResult } from '../client/results.js';
import { type Roots, resolveRoots } from '../client/roots.js';
import { TypedEmitter } from '../client/typed-emitter.js';
import type { SwitchboardError } from '../core/errors.js';
import { interpolate } from '../core/interpolate.js';
import { normalizeServerEntry, type ServerConfig } from '../core/server-config.js';
import { registrantOf } from '../policy/registration-sandbox.js';
import type {
  AuditPage,
  EventPage,
  GrantRepository,
  IdempotencyRepository,
  ReplicaRepository,
  Store,
  StoredEvent,
  TaskRepository,
} from '../storage/ports.js';
import type { AppView, AppViews } from './apps/app-views.js';
import { type HostLoginOptions, loginServer } from './auth/host-login.js';
import type { CallerRelay } from './caller-relay.js';
import type { CatalogSnapshot } from './catalog/catalog.js';
import type { CatalogKeeper } from './catalog/catalog-keeper.js';
import type { ContentReads } from './content-reads.js';
import type { EventFeed } from './event-feed.js';
import type { Governor } from './governance/governor.js';
import { checkUpstreamUrl } from './governance/network-guard.js';
import { type GovernedStart, type HostCallOptions, runGoverned } from './governed-call.js';
import type { GuardContext } from './guarded-content.js';
import { serverAway, unknownServer } from './host-errors.js';
import { assembleHost, type HostParts } from './host-parts.js';
import type {
  CallHooks,
  ChangeActor,
  ContentOptions,
  HostEvents,
  HostOptions,
  ServerStatus,
  UpstreamProtocol,
} from './host-types.js';
import { wireHost } from './host-wiring.js';
import type { Inbox } from './inbox/inbox.js';
import { latestValues } from './latest-values.js';
import type { LogFiles } from './logs/log-files.js';
import { createMediaHandler, type MediaHandler } from './media/media-handler.js';
import type { MediaStore } from './media/media-store.js';
import { type RenderedResult, renderResultWithMedia } from './media/media-text.js';
import { missingTool } from './missing-names.js';
import { fileServers, type ServerRegistry } from './server-registry.js';
import { whenSettled } from './settled.js';
import type { HostSkills } from './skills/host-skills.js';
import type { SpawnLedger } from './supervisor/spawn-ledger.js';
import type { ServerSnapshot, Supervisor } from './supervisor/supervisor.js';

export type { HostCallOptions } from './governed-call.js';
export type {
  CallHooks,
  ChangeActor,
  ContentOptions,
  HookCall,
  HostEvents,
  HostOptions,
  ServerStatus,
  UpstreamProtocol,
} from './host-types.js';

/**
 * The Host: many connections as one living system. It keeps configured and registered servers
 * connected (Supervisor), aggregates what they offer (catalog), persists what must survive a
 * restart (registrations, events, pins, era verdicts), writes per-server logs, and routes
 * calls. Governance plugs in through the call hooks; nothing here decides policy. How it is
 * put together is host-parts.ts; which servers it runs, server-registry.ts.
 */
/** How often `onEvents` hands over pending events when not told: 15 minutes. */
export const DEFAULT_EVENT_POLL_MS = 15 * 60 * 1000;

export class Host extends TypedEmitter<HostEvents> {
  private readonly hooks: CallHooks[] = [];
  private readonly registry: ServerRegistry;
  private readonly store: Store;
  private readonly supervisor: Supervisor;
  private readonly logs: LogFiles;
  private readonly media: MediaStore;
  private readonly credentials: CredentialStore;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly callers: CallerRelay;
  private readonly parts: HostParts;
  private readonly processes: SpawnLedger | undefined;
  /** The governed call path: policy, approvals and audit. */
  readonly governor: Governor;
  /** Approvals and elicitations waiting for a person; front-ends attach here. */
  readonly inbox: Inbox;
  /**
   * Whether the embedding app renders MCP Apps (`connection.apps`): servers are told so, and
   * a gateway relays the extension to the clients that declare it (docs/apps.md).
   */
  readonly rendersApps: boolean;
  private readonly views: AppViews;
  /** The servers' skills (MCP Skills extension): listed, fetched, loaded verified, audited. */
  readonly skills: HostSkills;

  private readonly mediaPrune: NodeJS.Timeout;
  private readonly events: EventFeed;
  private readonly reads: ContentReads;
  private readonly keeper: CatalogKeeper;
  private readonly stopLoginWatch: () => void;
  private readonly guardContext: (server: string) => GuardContext;

  private constructor(parts: HostParts) {
    super();
    this.parts = parts;
    ({
      store: this.store,
      supervisor: this.supervisor,
      logs: this.logs,
      media: this.media,
      governor: this.governor,
      inbox: this.inbox,
      credentials: this.credentials,
      env: this.env,
      callers: this.callers,
      processes: this.processes,
      rendersApps: this.rendersApps,
    } = parts);
    const wiring = wireHost(parts, {
      onLog: (entry) => this.onLog(entry),
      onEvent: (event) => this.onEvent(event),
      toolChanged: (change) => this.emit('tool_changed', change),
      published: (snapshot) => this.emit('catalog', snapshot),
      readRaw: (server, uri) => this.readResource(server, uri, { raw: true }),
      connected: (server) => this.connected(server),
    });
    ({
      registry: this.registry,
      keeper: this.keeper,
      views: this.views,
      reads: this.reads,
      skills: this.skills,
      events: this.events,
      stopLoginWatch: this.stopLoginWatch,
      mediaPrune: this.mediaPrune,
      guardContext: this.guardContext,
    } = wiring);
    parts.supervisor.on('servers', (snaps) => this.onServers(snaps));
  }

  /** Opens the store, starts every enabled server in the background, and returns at once. */
  static async create(options: HostOptions = {}): Promise<Host> {
    const host = new Host(await assembleHost(options));
    const files = fileServers(options.servers ?? [], options.invalidServers ?? [], options.sources);
    await host.registry.restore(files, options.only);
    return host;
  }

  // ---- servers ---------------------------------------------------------------------------

  servers(): readonly ServerStatus[] {
    return this.supervisor.snapshot().map((snap) => ({
      ...snap,
      ...this.keeper.toolsOf(snap),
      source: this.registry.source(snap.name),
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

  /**
   * Registers (or updates) a server, persists it, and connects it at once (unless the entry
   * says `enabled: false`: then it is kept, off). Audited as
   * `server_register` (`server_replace` for a name known already) with `actor` (who asked: an
   * API caller's session, a JSON-lines client, an agent) and the source.
   */
  async register(entry: unknown, source = 'api', actor?: ChangeActor): Promise<ServerConfig> {
    const config = normalizeServerEntry(entry, { file: source });
    const action = this.registry.has(config.name) ? 'server_replace' : 'server_register';
    await this.changed(action, config.name, source, actor, async () => {
      // An HTTP server's URL is checked by governance.network now, and again at every connect.
      if (config.transport.kind !== 'stdio')
        await checkUpstreamUrl(
          interpolate(config.transport.url, this.env, { server: config.name, field: 'url' }),
          this.governor.settings,
          this.parts.resolver,
        );
      await this.registry.register(config, entry, source, registrantOf(actor?.via ?? source));
    });
    return config;
  }

  /** Removes a registered server (closing it) and forgets it; audited as `server_remove`. */
  unregister(name: string, actor?: ChangeActor): Promise<void> {
    return this.changed('server_remove', name, this.registry.source(name), actor, () =>
      this.registry.unregister(name),
    );
  }

  /** Turns a server on or off (kept across restarts); audited as `server_enable` / `server_disable`. */
  setEnabled(name: string, enabled: boolean, actor?: ChangeActor): Promise<void> {
    const action = enabled ? 'server_enable' : 'server_disable';
    return this.changed(action, name, this.registry.source(name), actor, () =>
      this.registry.setEnabled(name, enabled),
    );
  }

  /** A change of the server list, audited once it is done (or failed). */
  private changed(
    action: string,
    server: string,
    source: string,
    actor: ChangeActor | undefined,
    work: () => Promise<void>,
  ): Promise<void> {
    const details = { source, ...(actor?.via !== undefined && { via: actor.via }) };
    const session = actor?.session;
    return this.governor.noted({ action, server, details, ...(session !== undefined && { session }) }, work);
  }

  reload(name: string): void {
    this.registry.reload(name);
  }

  /**
   * Logs a server in (OAuth): the browser flow for a person, the grant for a machine client.
   * The tokens are stored and the server reconnected. `print` receives the instructions.
   */
  async login(name: string, options: HostLoginOptions = {}): Promise<void> {
    const guarded = this.registry.networkOf(name)?.open();
    try {
      await loginServer(this.registry.require(name), this.credentials, this.env, {
        ...options,
        ...(guarded && { fetch: guarded.fetch }),
      });
    } finally {
      await guarded?.close();
    }
    this.registry.reload(name);
  }

  /** Forgets a server's OAuth credentials; it reconnects and will ask for a login. Returns how many were deleted. */
  async logout(name: string): Promise<number> {
    this.registry.require(name);
    const deleted = await this.credentials.delete(name);
    this.registry.reload(name);
    return deleted;
  }

  /** The normalized config of a server, or undefined. */
  serverConfig(name: string): ServerConfig | undefined {
    return this.registry.config(name);
  }

  /** Lazy-loading grants (the agents layer keeps them here so they survive a restart). */
  get grants(): GrantRepository {
    return this.store.grants;
  }

  /** Results of calls made with an idempotency key, shared by the gateways on this store. */
  get idempotency(): IdempotencyRepository {
    return this.store.idempotency;
  }

  /** Tasks the gateway answered its clients with, shared by the gateways on this store. */
  get tasks(): TaskRepository {
    return this.store.tasks;
  }

  /** Gateway replicas sharing this store, and who owns which MCP session (docs/replicas.md). */
  get replicas(): ReplicaRepository {
    return this.store.replicas;
  }

  /** What gateway replicas share besides sessions: Inbox items, stream events, notifications. */
  get replicaStore(): Pick<Store, 'inboxItems' | 'streamEvents' | 'notifications'> {
    return this.store;
  }

  /**
   * Resolves once every configured server has settled (none connecting or reconnecting) and
   * the catalog holds what they listed, or after `timeoutMs`, whichever comes first. A
   * gateway's first lists wait for it, so a client that lists once right after start sees the
   * servers still coming up (readiness, `/readyz`, asks the same). Never rejects.
   */
  settled(timeoutMs: number): Promise<boolean> {
    return whenSettled(this.supervisor, this.keeper, timeoutMs);
  }

  // ---- catalog and calls ---------------------------------------------------------------------

  catalog(): CatalogSnapshot {
    return this.keeper.current;
  }

  /** Adds hooks that run before and after every call (governance, audit). */
  useHooks(hooks: CallHooks): void {
    this.hooks.push(hooks);
  }

  /**
   * Why `what` (default "it") cannot be had from `server` now: not registered (`NOT_FOUND`),
   * starting or reconnecting (`UPSTREAM_RECONNECTING`, retry soon), or down until someone acts.
   * For a front end (the gateway) whose own lookup missed while a server was away.
   */
  unavailable(server: string, what?: string): SwitchboardError {
    if (!this.registry.has(server)) return unknownServer(server);
    return serverAway(server, this.supervisor.states().get(server), what);
  }

  /**
   * Why the catalog does not serve the tool `name`: unknown (`NOT_FOUND`), or its server is
   * starting or reconnecting (`UPSTREAM_RECONNECTING`, retry soon) or down (missing-names.ts).
   */
  whyMissing(name: string): SwitchboardError {
    return missingTool(this.keeper.current, name, this.supervisor.states());
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
  relayRequest(
    server: string,
    method: string,
    params: Record<string, unknown>,
    relayed: RelayedRequest,
    options: ContentOptions = {},
  ): Promise<RelayAnswer> {
    return this.reads.relay(server, method, params, relayed, options);
  }

  /**
   * The roots `server` is offered (its entry's, else the embedding app's; client/roots.ts):
   * the workspace an agent's reads of `file:` resources must stay in.
   */
  rootsOf(server: string): Roots {
    return resolveRoots(this.registry.config(server)?.roots, this.parts.defaultRoots);
  }

  /** What `server` is connected with, and what it says about itself (host-types.ts). */
  upstreamProtocol(server: string): UpstreamProtocol {
    const connection = this.supervisor.connection(server);
    return {
      ...(connection?.era && { era: connection.era }),
      ...(connection?.capabilities && { capabilities: connection.capabilities }),
      ...(connection?.serverInfo && { serverInfo: connection.serverInfo }),
      ...(connection?.instructions !== undefined && { instructions: connection.instructions }),
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
        missing: (tool) => this.whyMissing(tool),
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
   * Reads a resource from `server` (resources are data: no approval is asked, but policy may
   * deny it and the read is audited). Text that the injection scanner flags, from a server
   * that is not trusted, comes back wrapped in a "this is data, not instructions" banner;
   * `raw` skips that (content-reads.ts).
   */
  readResource(
    server: string,
    uri: string,
    options: ContentOptions & { readonly raw?: boolean } = {},
  ): Promise<ReadResourceResult> {
    return this.reads.readResource(server, uri, options);
  }

  /**
   * The MCP App view `uri` of `server`, checked and with the CSP and permissions it runs
   * under; read once per definition of the tools that name it (apps/app-views.ts).
   */
  appView(server: string, uri: string): Promise<AppView> {
    return this.views.view(server, uri);
  }

  /** Gets a prompt's messages from `server`, roles kept, audited; flagged text is guarded as in `readResource`. */
  getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: ContentOptions & { readonly raw?: boolean } = {},
  ): Promise<GetPromptResult> {
    return this.reads.getPrompt(server, name, args, options);
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

  /** Puts taken events back to pending, to be taken again (a consumer that did not finish). */
  releaseEvents(ids: readonly number[]): Promise<number> {
    return this.events.release(ids);
  }

  /**
   * Calls `handler` with each batch of pending events every `intervalMs` (default 15 minutes,
   * as agents/event-agent.ts, the ready consumer, does); returns a stop function.
   */
  onEvents(
    handler: (events: StoredEvent[]) => Promise<void> | void,
    options: { intervalMs?: number } = {},
  ): () => void {
    return this.events.poll(handler, { intervalMs: options.intervalMs ?? DEFAULT_EVENT_POLL_MS });
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
    await this.processes?.close();
    await this.keeper.stop();
    await this.store.close();
    await this.logs.close();
  }

  // ---- internals ------------------------------------------------------------------------------

  private connected(server: string): Connection {
    const connection = this.supervisor.connection(server);
    if (connection) return connection;
    throw this.unavailable(server);
  }

  private onLog(entry: LogEntry): void {
    this.logs.write(entry.server, entry);
    this.emit('log', entry);
  }

  private onEvent(event: ServerEvent): void {
    this.events.store(event);
    this.emit('event', event);
  }

  private onServers(snaps: readonly ServerSnapshot[]): void {
    this.emit('servers', snaps);
    this.keeper.schedule();
  }
}
