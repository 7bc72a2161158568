import type { NetworkGuard } from '../client/transports/guarded-fetch.js';
import type { InvalidEntry } from '../core/config/config-file.js';
import type { RegistrationSandbox } from '../core/config/governance-config.js';
import { shownName } from '../core/config/server-name.js';
import { describeError, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { normalizeServerEntry, type ServerConfig } from '../core/server-config.js';
import { decideRegistrationSandbox, type Registrant, registrantOf } from '../policy/registration-sandbox.js';
import type { ServerRepository, StoredServer } from '../storage/ports.js';
import { unknownServer } from './host-errors.js';
import type { LogFiles } from './logs/log-files.js';
import { secretsOf } from './secrets.js';
import type { ServerSnapshot, Supervisor } from './supervisor/supervisor.js';

/**
 * Which servers the host knows and where each came from: entries of configuration files, and
 * registrations kept in the store (made at run time through the API, the JSON-lines protocol
 * or an agent). It is the one place that turns an entry into a supervised server, so the
 * stored registration, the normalized config, the log's secrets and the supervisor agree —
 * and where a registration's HTTP goes: through the network guard, at every connect, whether
 * it was registered just now or restored from the store. File entries are not guarded. Likewise
 * a registered local server's sandbox (policy/registration-sandbox.ts): the default profile
 * unless its entry says otherwise, and never off unless the policy lets a person say so.
 *
 * An entry that does not normalize — a config-file entry with a mistake, a registration stored
 * by an older version or damaged — is held as a `failed` server with its error: the host runs
 * the others, the person sees what to fix, and nothing about it can stop a restart.
 */
export interface ServerRegistryOptions {
  readonly repository: ServerRepository;
  readonly supervisor: Supervisor;
  readonly logs: LogFiles;
  /** The guarded network every registration connects through (network-guard.ts). */
  readonly network?: NetworkGuard;
  /** The variables the servers' `${VAR}`s expand from, so their values are kept out of logs. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Whether registrations may run unsandboxed (governance.sandbox.registrations). Default required. */
  readonly sandboxPolicy?: RegistrationSandbox;
}

/** A server as the host starts it: its config, whether it is on, and its source. */
export interface TrackedServer {
  readonly config: ServerConfig;
  readonly enabled: boolean;
  /** A file path for configured servers; `api`, `agent`, `jsonl`, … for registrations. */
  readonly source: string;
  /** A registration (made at run time, or restored from the store), not a file entry: guarded. */
  readonly registered?: boolean;
}

/** A server whose entry does not normalize: held `failed` with `error` (see `Supervisor.hold`). */
export interface HeldServer {
  readonly name: string;
  readonly error: SwitchboardError;
  readonly enabled: boolean;
  readonly source: string;
  /** What the entry seems to be, for the listing. */
  readonly transport: ServerSnapshot['transport'];
}

/** Either kind of server the registry knows. */
export type RegistryEntry = TrackedServer | HeldServer;

/** The servers of configuration files: the valid ones, and the invalid ones to hold. */
export function fileServers(
  servers: readonly ServerConfig[],
  invalid: readonly InvalidEntry[],
  sources: Readonly<Record<string, string>> = {},
): RegistryEntry[] {
  const sourceOf = (name: string) => (Object.hasOwn(sources, name) ? sources[name]! : 'config');
  return [
    ...servers.map((config) => ({ config, enabled: config.enabled, source: sourceOf(config.name) })),
    ...invalid.map(({ name, file, error, entry }) => ({
      name,
      error,
      enabled: true,
      source: Object.hasOwn(sources, name) ? sources[name]! : file,
      transport: transportOf(entry),
    })),
  ];
}

function nameOf(entry: RegistryEntry): string {
  return 'config' in entry ? entry.config.name : entry.name;
}

export class ServerRegistry {
  private readonly configs = new Map<string, ServerConfig>();
  private readonly held = new Map<string, SwitchboardError>();
  private readonly sources = new Map<string, string>();
  private readonly registered = new Set<string>();

  constructor(private readonly options: ServerRegistryOptions) {}

  /** The normalized config of a server, or undefined (also for a held one). */
  config(name: string): ServerConfig | undefined {
    return this.configs.get(name);
  }

  /** The config of a known server; a held one's error, or NOT_FOUND, otherwise. */
  require(name: string): ServerConfig {
    const config = this.configs.get(name);
    if (config) return config;
    const held = this.held.get(name);
    if (held) throw held;
    throw unknownServer(name);
  }

  /** Whether the server is known, runnable or held. */
  has(name: string): boolean {
    return this.configs.has(name) || this.held.has(name);
  }

  /** Where a server came from (a file path, or the registration's source). */
  source(name: string): string {
    return this.sources.get(name) ?? 'unknown';
  }

  /**
   * Starts the servers of configuration files together with the registrations in the store.
   * A registration replaces a file entry of the same name; a `toggle` row is only a file
   * entry's on/off flag (the file's entry stays the truth, later edits count), and one whose
   * entry left the file is ignored. Entries that do not normalize are held as failed.
   */
  async restore(files: readonly RegistryEntry[], only?: readonly string[]): Promise<void> {
    const merged = mergeRegistrations(
      files,
      await this.options.repository.list(),
      this.options.sandboxPolicy,
    );
    for (const server of merged) if (!only || only.includes(nameOf(server))) this.track(server);
  }

  /**
   * Stores a registration (replacing one of the same name) and starts the server at once, unless
   * disabled. A local server gets its sandbox here; POLICY_DENIED, with nothing stored, when it
   * asks to run unsandboxed and `by` may not say so.
   */
  async register(
    config: ServerConfig,
    entry: unknown,
    source: string,
    by: Registrant = 'agent',
  ): Promise<void> {
    const sandboxed = withRegistrationSandbox(config, this.options.sandboxPolicy ?? 'required', by);
    if (sandboxed instanceof SwitchboardError) throw sandboxed;
    const { enabled } = sandboxed;
    await this.options.repository.upsert({ name: config.name, entry, enabled, source });
    this.track({ config: sandboxed, enabled, source, registered: true });
  }

  /** Forgets a server (and its registration) and closes it. */
  async unregister(name: string): Promise<void> {
    await this.options.repository.remove(name);
    this.configs.delete(name);
    this.held.delete(name);
    this.sources.delete(name);
    this.registered.delete(name);
    await this.options.supervisor.remove(name);
  }

  /** Turns a server on or off, and remembers that across restarts. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const { repository, supervisor } = this.options;
    if (await repository.get(name)) await repository.setEnabled(name, enabled);
    else {
      if (!this.has(name)) throw unknownServer(name);
      // A server from a config file: remember only the toggle in the store, keyed by its name.
      await repository.upsert({ name, entry: {}, enabled, source: 'toggle' });
    }
    await supervisor.setEnabled(name, enabled);
  }

  /** Connects a server afresh with its current config; a held one stays failed until fixed. */
  reload(name: string): void {
    if (this.held.has(name)) return;
    this.options.supervisor.reload(name, this.require(name));
  }

  /** The network a server's HTTP goes through: the guard for a registration, else none. */
  networkOf(name: string): NetworkGuard | undefined {
    return this.registered.has(name) ? this.options.network : undefined;
  }

  private track(server: RegistryEntry): void {
    const { supervisor, logs } = this.options;
    if (!('config' in server)) {
      this.configs.delete(server.name);
      this.held.set(server.name, server.error);
      this.sources.set(server.name, server.source);
      supervisor.hold(server.name, server.error, { enabled: server.enabled, transport: server.transport });
      return;
    }
    const { config, enabled, source, registered } = server;
    this.held.delete(config.name);
    this.configs.set(config.name, config);
    this.sources.set(config.name, source);
    if (registered) this.registered.add(config.name);
    else this.registered.delete(config.name);
    logs.setSecrets(config.name, secretsOf(config, this.options.env));
    const network = this.networkOf(config.name);
    supervisor.add(config, { enabled, ...(network && { network }) });
  }
}

/** The file entries with the stored registrations applied (see `ServerRegistry.restore`). Pure. */
export function mergeRegistrations(
  files: readonly RegistryEntry[],
  stored: readonly StoredServer[],
  sandboxPolicy: RegistrationSandbox = 'required',
): RegistryEntry[] {
  const byName = new Map(files.map((server) => [nameOf(server), server]));
  for (const row of stored) {
    if (row.source === 'toggle') {
      const fromFile = byName.get(row.name);
      if (fromFile) byName.set(row.name, { ...fromFile, enabled: row.enabled });
      continue;
    }
    byName.set(row.name, registrationOf(row, sandboxPolicy));
  }
  return [...byName.values()];
}

/**
 * A stored registration as the host runs it (with its sandbox, judged by who registered it,
 * from its source), or held with what is wrong with it. Pure.
 */
export function registrationOf(
  row: StoredServer,
  sandboxPolicy: RegistrationSandbox = 'required',
): RegistryEntry {
  const { name, enabled, source } = row;
  const entry = row.entry;
  const where = `the store (registered through ${source})`;
  try {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `${where}: server "${shownName(name)}": the stored entry is not an object (it is damaged).`,
        { details: { server: name, field: '(entry)' } },
      );
    }
    const normalized = normalizeServerEntry({ ...entry, name }, { file: where });
    const config = withRegistrationSandbox(normalized, sandboxPolicy, registrantOf(source));
    if (config instanceof SwitchboardError) throw config;
    return { config, enabled, source, registered: true };
  } catch (error) {
    const cause = isSwitchboardError(error) ? error : undefined;
    return {
      name,
      enabled,
      source,
      transport: transportOf(entry),
      error: new SwitchboardError(
        'CONFIG_INVALID',
        `${describeError(error)} This registration cannot start: register the server again with a valid ` +
          `entry, or remove it (switchboard remove ${shownName(name)}).`,
        { cause: error, details: { ...cause?.details, server: name, source } },
      ),
    };
  }
}

/**
 * A registration's config with the sandbox it runs in (a local server's; a remote one is left
 * as it is), or the POLICY_DENIED error saying why it may not run unsandboxed. Pure.
 */
export function withRegistrationSandbox(
  config: ServerConfig,
  policy: RegistrationSandbox,
  by: Registrant,
): ServerConfig | SwitchboardError {
  const t = config.transport;
  if (t.kind !== 'stdio') return config;
  const decision = decideRegistrationSandbox(t.sandbox, policy, by);
  if (!decision.allowed) {
    return new SwitchboardError(
      'POLICY_DENIED',
      `Server "${shownName(config.name)}", field "sandbox": ${decision.reason}`,
      { details: { server: config.name, field: 'sandbox', setting: 'governance.sandbox.registrations' } },
    );
  }
  return { ...config, transport: { ...t, sandbox: decision.sandbox } };
}

/** What a raw entry seems to be: its `transport`, else http for a `url`, else stdio. */
function transportOf(entry: unknown): ServerSnapshot['transport'] {
  const fields = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
  if (fields.transport === 'http' || fields.transport === 'sse' || fields.transport === 'stdio')
    return fields.transport;
  return typeof fields.url === 'string' ? 'http' : 'stdio';
}
