import { Connection } from '../../client/connection.js';
import type { ConnectionOptions } from '../../client/connection-types.js';
import type { NetworkGuard } from '../../client/transports/guarded-fetch.js';
import { TypedEmitter } from '../../client/typed-emitter.js';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import type { ServerConfig } from '../../core/server-config.js';
import { countReconnect } from '../../core/telemetry/counters.js';
import {
  SPAN_CONNECT,
  SPAN_RECONNECT,
  SWITCHBOARD_RECONNECT_REASON,
  SWITCHBOARD_SERVER,
} from '../../core/telemetry/semconv.js';
import { stepSpan } from '../../core/telemetry/step-span.js';
import { unknownServer } from '../host-errors.js';
import {
  DEFAULT_RUNTIME_BACKOFF,
  FIRST_CONNECT_DELAYS_MS,
  type RuntimeBackoff,
  runtimeDelay,
} from './backoff.js';

/**
 * Keeps every configured server connected, each on its own: `start()` returns at once, servers
 * connect in parallel, and one slow or broken server never holds up another. A first connect
 * is retried on a short schedule and then left `failed` (with the error and what to do) until
 * reloaded; a server that drops after connecting is reconnected with capped, jittered backoff
 * (unless the reconnect is refused for good: an authorization server's refusal, or the network
 * policy's — those wait in `failed` for a reload). Every retry uses a fresh Connection, so a
 * fresh transport and process (and, for a guarded server, a fresh lookup judged again).
 */
export type ServerState = 'connecting' | 'connected' | 'reconnecting' | 'needs_auth' | 'failed' | 'disabled';

export interface ServerSnapshot {
  readonly name: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly state: ServerState;
  readonly protocolVersion?: string;
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
  /** Lists of a connected server that came back incomplete (only when some did). */
  readonly incompleteLists?: readonly IncompleteList[];
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * A list the server cut short, so what it offers is more than the catalog shows: it still had
 * pages after the cap (`page-cap`), or handed back a cursor already followed (`cursor-loop`).
 */
export interface IncompleteList {
  readonly kind: 'tools' | 'resources' | 'prompts';
  readonly reason: 'page-cap' | 'cursor-loop';
  /** Pages fetched before the list was cut. */
  readonly pages: number;
  /** Items it holds. */
  readonly items: number;
}

export type SupervisorEvents = {
  /** Every change of any server: the whole list, in name order. */
  servers: [snapshots: readonly ServerSnapshot[]];
};

export interface SupervisorOptions {
  /** Options for each Connection, minus its config. */
  readonly connection?: Omit<ConnectionOptions, 'config'>;
  readonly firstConnectDelaysMs?: readonly number[];
  readonly runtimeBackoff?: RuntimeBackoff;
  /** Total budget of a first connect, retries included. Default: the entry's `timeouts.startup` (120 s). */
  readonly startupMs?: number;
  readonly createConnection?: (options: ConnectionOptions) => Connection;
  /**
   * The master switch (`HostOptions.enabled`): false, no server connects. Every server is
   * kept and listed `disabled` with why; enabling one records nothing here and connects
   * nothing until the switch is on again (a new host).
   */
  readonly enabled?: boolean;
}

/** Why every server is disabled while the master switch is off. */
export function mcpOffError(): SwitchboardError {
  return new SwitchboardError(
    'MCP_OFF',
    'MCP is off for this host ("enabled": false in switchboard.json, or HostOptions.enabled): no server connects. ' +
      'Set it to true (or remove it) and restart to connect them; their entries are kept as they are.',
  );
}

interface Runner {
  readonly name: string;
  readonly transport: ServerSnapshot['transport'];
  /** What it connects with; absent for a held server (`hold`), which never connects. */
  readonly config?: ServerConfig;
  /** The guarded network of a server registered at run time; kept across reloads. */
  readonly network?: NetworkGuard;
  /** Why a held server cannot start: its error while it is shown `failed`. */
  readonly held?: SwitchboardError;
  state: ServerState;
  connection?: Connection;
  counts: { tools: number; resources: number; prompts: number };
  incomplete: IncompleteList[];
  error?: SwitchboardError;
  /** Bumped to end the runner's loop (remove, reload, disable, stop). */
  generation: number;
  wake?: () => void;
}

export class Supervisor extends TypedEmitter<SupervisorEvents> {
  private readonly runners = new Map<string, Runner>();
  private stopped = false;

  constructor(private readonly options: SupervisorOptions = {}) {
    super();
  }

  /** The master switch is off: nothing connects. */
  private get mcpOff(): boolean {
    return this.options.enabled === false;
  }

  /** Starts (or restarts) the given servers in the background; returns at once. */
  start(configs: readonly ServerConfig[]): void {
    for (const config of configs) this.add(config);
  }

  /**
   * Adds or replaces a server and starts connecting it. `network`: where its HTTP goes (the
   * guard of a server registered at run time); every connect of this server uses it.
   */
  add(config: ServerConfig, options: { enabled?: boolean; network?: NetworkGuard } = {}): void {
    const previous = this.runners.get(config.name);
    if (previous) void this.retire(previous);
    const runner: Runner = {
      name: config.name,
      transport: config.transport.kind,
      config,
      ...(options.network && { network: options.network }),
      state: options.enabled === false || this.mcpOff ? 'disabled' : 'connecting',
      ...(this.mcpOff && { error: mcpOffError() }),
      counts: { tools: 0, resources: 0, prompts: 0 },
      incomplete: [],
      generation: (previous?.generation ?? 0) + 1,
    };
    this.runners.set(config.name, runner);
    // Spawning is synchronous work: each server starts on its own turn of the event loop, so
    // start() returns at once and twenty servers do not freeze the process while they launch.
    if (runner.state !== 'disabled') setImmediate(() => void this.run(runner, config, runner.generation));
    this.publish();
  }

  /**
   * Adds or replaces a server that cannot start — its entry does not normalize (a stored
   * registration of an older version, a broken config-file entry): it is listed `failed` with
   * `error` (or `disabled`), never connected, until `add` replaces it or `remove` drops it.
   * `transport` is what the entry seems to be, for the listing.
   */
  hold(
    name: string,
    error: SwitchboardError,
    options: { enabled?: boolean; transport?: ServerSnapshot['transport'] } = {},
  ): void {
    const previous = this.runners.get(name);
    if (previous) void this.retire(previous);
    this.runners.set(name, {
      name,
      transport: options.transport ?? 'stdio',
      held: error,
      error,
      state: options.enabled === false ? 'disabled' : 'failed',
      counts: { tools: 0, resources: 0, prompts: 0 },
      incomplete: [],
      generation: (previous?.generation ?? 0) + 1,
    });
    this.publish();
  }

  /** Stops a server and forgets it. */
  async remove(name: string): Promise<void> {
    const runner = this.runners.get(name);
    if (!runner) return;
    this.runners.delete(name);
    await this.retire(runner);
    this.publish();
  }

  /** Disables (closes) or enables (connects) a server. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const runner = this.require(name);
    if (!enabled) {
      await this.retire(runner);
      this.setState(runner, 'disabled');
      return;
    }
    if (runner.state !== 'disabled' && runner.state !== 'failed' && runner.state !== 'needs_auth') return;
    if (this.mcpOff) return;
    // A held server has nothing to connect with: enabled, it is failed again, with its error.
    if (!runner.config) this.setState(runner, 'failed');
    else this.add(runner.config, guarded(runner));
  }

  /**
   * Connects a server afresh (a failed one included), with its current or a new config. A held
   * server without a new config stays as it is: its entry must be fixed first.
   */
  reload(name: string, config?: ServerConfig): void {
    const runner = this.require(name);
    if (config) this.add(config, guarded(runner));
    else if (runner.config) this.add(runner.config, guarded(runner));
  }

  /**
   * A connected server whose credentials stopped working (its refresh token was rejected
   * mid-session): its connection is closed and it waits in `needs_auth` for a login.
   */
  async requireLogin(name: string, error: SwitchboardError): Promise<void> {
    const runner = this.runners.get(name);
    if (!runner || runner.held || runner.state === 'needs_auth' || runner.state === 'disabled') return;
    await this.retire(runner);
    runner.error = error;
    this.setState(runner, 'needs_auth');
  }

  /** The live connection of a connected server. */
  connection(name: string): Connection | undefined {
    const runner = this.runners.get(name);
    return runner?.state === 'connected' ? runner.connection : undefined;
  }

  /** Each server's state, by name. */
  states(): Map<string, ServerState> {
    return new Map([...this.runners].map(([name, r]) => [name, r.state]));
  }

  snapshot(): ServerSnapshot[] {
    return [...this.runners.values()]
      .map((r) => snapshotOf(r))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Resolves once no server is connecting or reconnecting (or the time is up); `stillComing`
   * narrows what counts as not settled yet (default: any connecting or reconnecting server).
   */
  async settled(
    timeoutMs: number,
    stillComing: (snap: ServerSnapshot) => boolean = (s) =>
      s.state === 'connecting' || s.state === 'reconnecting',
  ): Promise<readonly ServerSnapshot[]> {
    const busy = () => this.snapshot().some(stillComing);
    if (!busy()) return this.snapshot();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('servers', check);
        resolve(this.snapshot());
      };
      const check = () => {
        if (!busy()) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.on('servers', check);
    });
  }

  /** Closes every server; nothing is left running. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(all.map((r) => this.retire(r)));
  }

  private async run(runner: Runner, config: ServerConfig, generation: number): Promise<void> {
    const current = () => !this.stopped && runner.generation === generation;
    const delays = this.options.firstConnectDelaysMs ?? FIRST_CONNECT_DELAYS_MS;
    const backoff = this.options.runtimeBackoff ?? DEFAULT_RUNTIME_BACKOFF;
    const startupDeadline = Date.now() + (this.options.startupMs ?? config.startupTimeoutMs);
    let everConnected = false;
    let attempt = 0;
    while (current()) {
      this.setState(runner, everConnected ? 'reconnecting' : 'connecting');
      const connection = (this.options.createConnection ?? ((o) => new Connection(o)))({
        ...this.options.connection,
        config,
        ...(runner.network && { network: runner.network }),
      });
      runner.connection = connection;
      try {
        // A span of its own per attempt (until the catalog has the server's lists), and a
        // reconnect counted by outcome (semconv.ts).
        const reconnect = everConnected;
        const connected = await stepSpan(
          reconnect ? SPAN_RECONNECT : SPAN_CONNECT,
          {
            root: true,
            attributes: () => ({
              [SWITCHBOARD_SERVER]: runner.name,
              ...(reconnect && { [SWITCHBOARD_RECONNECT_REASON]: 'dropped' }),
            }),
          },
          async () => {
            try {
              await connection.connect();
            } catch (error) {
              if (reconnect) countReconnect(runner.name, 'dropped', 'error');
              throw error;
            }
            if (reconnect) countReconnect(runner.name, 'dropped', 'ok');
            if (!current()) return undefined;
            // In an object: an async function returning a promise would wait for it.
            const dropped = new Promise<void>((resolve) => connection.once('disconnected', () => resolve()));
            await this.discover(runner, connection);
            return { dropped };
          },
        );
        if (!connected) break;
        connection.on('listChanged', () => void this.discover(runner, connection));
        everConnected = true;
        attempt = 0;
        runner.error = undefined;
        this.setState(runner, 'connected');
        await Promise.race([connected.dropped, new Promise<void>((resolve) => (runner.wake = resolve))]);
        if (!current()) break;
        // Dropped: its tools leave the catalog now; pending calls already failed.
        runner.counts = { tools: 0, resources: 0, prompts: 0 };
        runner.incomplete = [];
        runner.error = new SwitchboardError(
          'UPSTREAM_DISCONNECTED',
          `Server "${runner.name}" disconnected; reconnecting.`,
        );
      } catch (error) {
        runner.error = isSwitchboardError(error)
          ? error
          : new SwitchboardError('CONNECT_FAILED', describeError(error), { cause: error });
        await connection.close().catch(() => undefined);
        if (!current()) break;
        if (needsLogin(runner.error)) {
          this.setState(runner, 'needs_auth');
          return;
        }
        const firstConnectOver = attempt >= delays.length || Date.now() >= startupDeadline;
        // An authorization server that refused us for good will refuse a reconnect too, and
        // the network policy refuses the same address again: both wait for a reload.
        const refused =
          (runner.error.code === 'AUTH_FAILED' && runner.error.details.reason !== 'unreachable') ||
          runner.error.code === 'POLICY_DENIED';
        if (refused || (!everConnected && (firstConnectOver || !retryable(runner.error)))) {
          this.setState(runner, 'failed');
          return;
        }
      }
      await connection.close().catch(() => undefined);
      const delay = everConnected ? runtimeDelay(attempt, backoff) : (delays[attempt] ?? 0);
      attempt++;
      if (!current()) break;
      this.setState(runner, everConnected ? 'reconnecting' : 'connecting');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        runner.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private async discover(runner: Runner, connection: Connection): Promise<void> {
    const [tools, resources, prompts] = await Promise.all([
      connection.listTools().catch(() => undefined),
      connection.listResources().catch(() => undefined),
      connection.listPrompts().catch(() => undefined),
    ]);
    runner.counts = {
      tools: tools?.items.length ?? 0,
      resources: resources?.items.length ?? 0,
      prompts: prompts?.items.length ?? 0,
    };
    const lists = { tools, resources, prompts } as const;
    runner.incomplete = (['tools', 'resources', 'prompts'] as const).flatMap((kind) => {
      const cut = lists[kind]?.truncation;
      return cut
        ? [{ kind, reason: cut.reason, pages: cut.pages, items: lists[kind]?.items.length ?? 0 }]
        : [];
    });
    if (runner.state === 'connected') this.publish();
  }

  private async retire(runner: Runner): Promise<void> {
    runner.generation++;
    runner.wake?.();
    const connection = runner.connection;
    runner.connection = undefined;
    runner.counts = { tools: 0, resources: 0, prompts: 0 };
    runner.incomplete = [];
    await connection?.close().catch(() => undefined);
  }

  private setState(runner: Runner, state: ServerState): void {
    runner.state = state;
    if (this.runners.get(runner.name) === runner) this.publish();
  }

  private publish(): void {
    this.emit('servers', this.snapshot());
  }

  private require(name: string): Runner {
    const runner = this.runners.get(name);
    if (!runner) throw unknownServer(name);
    return runner;
  }
}

/** The add options that keep a runner's guarded network. */
function guarded(runner: Runner): { network?: NetworkGuard } {
  return runner.network ? { network: runner.network } : {};
}

/** A person must log in: the server or our credentials say so. */
function needsLogin(error: SwitchboardError): boolean {
  return error.code === 'AUTH_REQUIRED' || (error.code === 'UPSTREAM_HTTP' && error.details.status === 401);
}

/** Errors a retry cannot fix: the entry itself is wrong. */
function retryable(error: SwitchboardError): boolean {
  return ![
    'ENV_VAR_MISSING',
    'SPAWN_FAILED',
    'SANDBOX_UNAVAILABLE',
    'PROTOCOL_VERSION_UNSUPPORTED',
    'CONFIG_INVALID',
  ].includes(error.code);
}

function snapshotOf(r: Runner): ServerSnapshot {
  const version = r.state === 'connected' ? r.connection?.protocolVersion : undefined;
  return {
    name: r.name,
    transport: r.transport,
    state: r.state,
    ...(version !== undefined && { protocolVersion: version }),
    ...r.counts,
    ...(r.state === 'connected' && r.incomplete.length > 0 && { incompleteLists: r.incomplete }),
    ...(r.error && r.state !== 'connected' && { error: { code: r.error.code, message: r.error.message } }),
  };
}
