import type { NetworkGuard } from '../client/transports/guarded-fetch.js';
import { normalizeServerEntry, type ServerConfig } from '../core/server-config.js';
import type { ServerRepository, StoredServer } from '../storage/ports.js';
import { unknownServer } from './host-errors.js';
import type { LogFiles } from './logs/log-files.js';
import { secretsOf } from './secrets.js';
import type { Supervisor } from './supervisor/supervisor.js';

/**
 * Which servers the host knows and where each came from: entries of configuration files, and
 * registrations kept in the store (made at run time through the API, the JSON-lines protocol
 * or an agent). It is the one place that turns an entry into a supervised server, so the
 * stored registration, the normalized config, the log's secrets and the supervisor agree —
 * and where a registration's HTTP goes: through the network guard, at every connect, whether
 * it was registered just now or restored from the store. File entries are not guarded.
 */
export interface ServerRegistryOptions {
  readonly repository: ServerRepository;
  readonly supervisor: Supervisor;
  readonly logs: LogFiles;
  /** The guarded network every registration connects through (network-guard.ts). */
  readonly network?: NetworkGuard;
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

export class ServerRegistry {
  private readonly configs = new Map<string, ServerConfig>();
  private readonly sources = new Map<string, string>();
  private readonly registered = new Set<string>();

  constructor(private readonly options: ServerRegistryOptions) {}

  /** The normalized config of a server, or undefined. */
  config(name: string): ServerConfig | undefined {
    return this.configs.get(name);
  }

  /** The config of a known server; NOT_FOUND otherwise. */
  require(name: string): ServerConfig {
    const config = this.configs.get(name);
    if (!config) throw unknownServer(name);
    return config;
  }

  has(name: string): boolean {
    return this.configs.has(name);
  }

  /** Where a server came from (a file path, or the registration's source). */
  source(name: string): string {
    return this.sources.get(name) ?? 'unknown';
  }

  /**
   * Starts the servers of configuration files together with the registrations in the store.
   * A registration replaces a file entry of the same name; a `toggle` row is only a file
   * entry's on/off flag (the file's entry stays the truth, later edits count), and one whose
   * entry left the file is ignored.
   */
  async restore(files: readonly TrackedServer[], only?: readonly string[]): Promise<void> {
    const merged = mergeRegistrations(files, await this.options.repository.list());
    for (const server of merged) if (!only || only.includes(server.config.name)) this.track(server);
  }

  /** Stores a registration (replacing one of the same name) and starts the server at once. */
  async register(config: ServerConfig, entry: unknown, source: string): Promise<void> {
    await this.options.repository.upsert({ name: config.name, entry, enabled: true, source });
    this.track({ config, enabled: true, source, registered: true });
  }

  /** Forgets a server (and its registration) and closes it. */
  async unregister(name: string): Promise<void> {
    await this.options.repository.remove(name);
    this.configs.delete(name);
    this.sources.delete(name);
    this.registered.delete(name);
    await this.options.supervisor.remove(name);
  }

  /** Turns a server on or off, and remembers that across restarts. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const { repository, supervisor } = this.options;
    if (await repository.get(name)) await repository.setEnabled(name, enabled);
    else {
      this.require(name);
      // A server from a config file: remember only the toggle in the store, keyed by its name.
      await repository.upsert({ name, entry: {}, enabled, source: 'toggle' });
    }
    await supervisor.setEnabled(name, enabled);
  }

  /** Connects a server afresh with its current config. */
  reload(name: string): void {
    this.options.supervisor.reload(name, this.require(name));
  }

  /** The network a server's HTTP goes through: the guard for a registration, else none. */
  networkOf(name: string): NetworkGuard | undefined {
    return this.registered.has(name) ? this.options.network : undefined;
  }

  private track({ config, enabled, source, registered }: TrackedServer): void {
    this.configs.set(config.name, config);
    this.sources.set(config.name, source);
    if (registered) this.registered.add(config.name);
    else this.registered.delete(config.name);
    this.options.logs.setSecrets(config.name, secretsOf(config));
    const network = this.networkOf(config.name);
    this.options.supervisor.add(config, { enabled, ...(network && { network }) });
  }
}

/** The file entries with the stored registrations applied (see `ServerRegistry.restore`). Pure. */
export function mergeRegistrations(
  files: readonly TrackedServer[],
  stored: readonly StoredServer[],
): TrackedServer[] {
  const byName = new Map(files.map((server) => [server.config.name, server]));
  for (const row of stored) {
    if (row.source === 'toggle') {
      const fromFile = byName.get(row.name);
      if (fromFile) byName.set(row.name, { ...fromFile, enabled: row.enabled });
      continue;
    }
    const config = normalizeServerEntry({ ...(row.entry as object), name: row.name });
    byName.set(row.name, { config, enabled: row.enabled, source: row.source, registered: true });
  }
  return [...byName.values()];
}
