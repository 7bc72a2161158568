import { homedir } from 'node:os';
import { join } from 'node:path';
import { toolEmbeddingsFromConfig, useSearchEmbeddings } from '../agents/meta-tools/search-embeddings.js';
import { type LoadedConfig, loadConfig } from '../config-files/load-config.js';
import { readSecretsEnv } from '../config-files/secrets-env.js';
import type { EmbeddingsConfig } from '../core/config/search-config.js';
import { describeError } from '../core/errors.js';
import { Host, type HostOptions } from '../host/host.js';
import { DATABASE_URL_ENV } from './database-env.js';
import { startTelemetry, type Telemetry } from './telemetry.js';

/**
 * The composition root: reads the configuration files and builds a running Host from them.
 * What the CLI, the gateway and an embedding app start from.
 */
export interface SwitchboardOptions extends Omit<HostOptions, 'servers'> {
  /** Where `switchboard.json` is looked for. Default: the working directory. */
  readonly projectDir?: string;
  /** The project's config file, when it is not `<projectDir>/switchboard.json`. */
  readonly projectFile?: string;
  /** Whose `~/.switchboard/config.json` is read. Default: the user's home. */
  readonly homeDir?: string;
  /**
   * Start only these servers (by name, from the config files and the store); the others are
   * left out. A one-shot command connects only the server it needs.
   */
  readonly only?: readonly string[];
  /**
   * Start the OpenTelemetry SDK that the `OTEL_*` environment and the config file's
   * `telemetry` section ask for (telemetry.ts). Default true; with neither set, none starts.
   * An app with an SDK of its own needs nothing here: Switchboard's spans and metrics go to it.
   */
  readonly telemetry?: boolean;
  /** The environment read for `OTEL_*` settings. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export { DATABASE_URL_ENV };

export interface Switchboard {
  readonly host: Host;
  /** Where the store (unless PostgreSQL), logs and the secret key live. */
  readonly dataDir: string;
  /** Which files were read, and what they held. */
  readonly config: LoadedConfig;
  /** The telemetry Switchboard started, if any (its `metricsText` feeds the gateway's `/metrics`). */
  readonly telemetry?: Telemetry;
  /** Whether the store is shared (PostgreSQL): then gateways on it serve as replicas of one. */
  readonly sharedStore: boolean;
  close(): Promise<void>;
}

/**
 * Reads the config files and starts a Host on them. An entry that does not normalize is not
 * fatal: it is listed as a `failed` server with its error (`config.invalid`), and every other
 * server runs. A file that does not parse, or whose `governance` or `gateway` section is
 * invalid, still is: there is no entry to show, or the settings that protect the gateway
 * would be left at their defaults.
 */
export async function createSwitchboard(options: SwitchboardOptions = {}): Promise<Switchboard> {
  const homeDir = options.homeDir ?? homedir();
  const config = await loadConfig(
    {
      projectDir: options.projectDir ?? process.cwd(),
      ...(options.projectFile !== undefined && { projectFile: options.projectFile }),
      homeDir,
    },
    { invalidEntries: 'collect' },
  );
  const { projectDir: _p, projectFile: _f, homeDir: _h, telemetry: _t, env: _e, ...hostOptions } = options;
  // Before the host, so its first connects are traced.
  const telemetry =
    options.telemetry === false
      ? undefined
      : await startTelemetry(options.env ?? process.env, config.telemetry);
  const only = options.only;
  // PostgreSQL for a gateway that runs on several machines; the embedded SQLite file otherwise.
  const databaseUrl = options.database ?? process.env[DATABASE_URL_ENV];
  const dataDir = options.dataDir ?? join(homeDir, '.switchboard');
  // `${VAR}`s of the config files may be answered by the data dir's secrets.env (what
  // `switchboard import` moved out of other clients' configs); the environment wins.
  const secrets = await readSecretsEnv(dataDir);
  const env = options.connection?.env ?? process.env;
  const host = await Host.create({
    ...hostOptions,
    ...(Object.keys(secrets).length > 0 && {
      connection: { ...options.connection, env: { ...secrets, ...env } },
    }),
    dataDir,
    ...(databaseUrl && { database: databaseUrl }),
    servers: only ? config.servers.filter((s) => only.includes(s.name)) : config.servers,
    invalidServers: (config.invalid ?? []).filter((e) => !only || only.includes(e.name)),
    sources: config.sources,
    // The config file's governance, unless the embedding app chose its own.
    governance: { ...config.governance, ...options.governance },
    // The master switch: the app's, else the config file's.
    ...((options.enabled ?? config.enabled) === false && { enabled: false }),
  });
  useConfiguredSearch(host, config.search?.embeddings, env);
  return {
    host,
    dataDir,
    config,
    ...(telemetry && { telemetry }),
    sharedStore: !!databaseUrl,
    close: async () => {
      await host.close();
      await telemetry?.shutdown();
    },
  };
}

/**
 * The config's embedding provider for search_tools, if it names one. A provider that cannot
 * be set up (its API key variable unset) leaves search offline with a warning: ranking is
 * not worth refusing to start over.
 */
function useConfiguredSearch(
  host: Host,
  embeddings: EmbeddingsConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (!embeddings) return;
  try {
    useSearchEmbeddings(host, toolEmbeddingsFromConfig(embeddings, env));
  } catch (error) {
    process.emitWarning(`search_tools ranks offline: ${describeError(error)}`);
  }
}
