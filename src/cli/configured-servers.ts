import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_URL_ENV } from '../app/switchboard.js';
import type { NetworkGuard } from '../client/transports/guarded-fetch.js';
import { type LoadedConfig, loadConfig } from '../config-files/load-config.js';
import { resolveGovernance } from '../core/config/governance-config.js';
import { SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import { guardFor } from '../host/governance/network-guard.js';
import { registrationOf } from '../host/server-registry.js';
import { openStore } from '../storage/open-store.js';
import type { Store, StoredServer } from '../storage/ports.js';
import type { CliContext } from './cli-context.js';
import { didYouMean } from './help/suggest.js';

/**
 * The servers as the host would start them, without starting any: the config files merged
 * (a project entry replaces a user entry), then the store's records on top (a registration
 * replaces a file entry; a toggle of a file entry keeps the file as its source), the same
 * rules as `Host.create`. The setup verbs work from this so they touch only what they name.
 */
export interface ConfiguredServer {
  readonly name: string;
  /** The normalized entry; absent when it does not normalize (see `invalid`). */
  readonly config?: ServerConfig;
  /** Why the entry does not normalize (CONFIG_INVALID naming the field); the host holds it failed. */
  readonly invalid?: SwitchboardError;
  readonly enabled: boolean;
  /** Where the host says the entry came from: a config file's path, or a registration's source. */
  readonly source: string;
  /** The config file holding the entry, if one does (the project's when both do). */
  readonly file?: string;
  /** The store's record of this name: a registration, or a toggle (`source: 'toggle'`). */
  readonly stored?: StoredServer;
}

/** The merged configuration, the servers from it, and the store when there is one. */
export interface SetupView {
  readonly config: LoadedConfig;
  readonly servers: readonly ConfiguredServer[];
  /** Open when the data dir has a store (or a PostgreSQL URL is set); close it with `close()`. */
  readonly store?: Store;
  close(): Promise<void>;
}

/** Where the store is: `SWITCHBOARD_DATABASE_URL`, else `switchboard.db` in the data dir. */
export function storeLocation(ctx: Pick<CliContext, 'env' | 'dataDir'>): string {
  return ctx.env[DATABASE_URL_ENV] || join(ctx.dataDir, 'switchboard.db');
}

/**
 * Opens the store if it exists; a data dir without one has no registrations, toggles or
 * events, so nothing is created just to find that out.
 */
export async function openStoreIfAny(ctx: Pick<CliContext, 'env' | 'dataDir'>): Promise<Store | undefined> {
  const location = storeLocation(ctx);
  const isFile = !ctx.env[DATABASE_URL_ENV];
  if (isFile && !existsSync(location)) return undefined;
  return openStore(location);
}

/**
 * Reads the config files and the store (if any) into a `SetupView`. Entries that do not
 * normalize are listed with `invalid` rather than thrown, so the verbs that fix them
 * (`remove`, `disable`, `doctor`) work on them, and a broken entry never blocks work on others.
 */
export async function openSetup(ctx: CliContext): Promise<SetupView> {
  const config = await loadConfig(
    { projectDir: ctx.projectDir, projectFile: ctx.projectFile, homeDir: ctx.homeDir },
    { invalidEntries: 'collect' },
  );
  const store = await openStoreIfAny(ctx);
  try {
    const byName = new Map<string, ConfiguredServer>();
    const fileOf = (name: string) => (Object.hasOwn(config.sources, name) ? config.sources[name] : undefined);
    for (const c of config.servers) {
      const file = fileOf(c.name);
      byName.set(c.name, {
        name: c.name,
        config: c,
        enabled: c.enabled,
        source: file ?? 'config',
        ...(file && { file }),
      });
    }
    for (const e of config.invalid ?? []) {
      byName.set(e.name, { name: e.name, invalid: e.error, enabled: true, source: e.file, file: e.file });
    }
    for (const r of (await store?.servers.list()) ?? []) {
      const fromFile = byName.get(r.name);
      // A toggle of a file entry is only its flag (as in Host.create); without the entry, nothing.
      if (r.source === 'toggle') {
        if (fromFile) byName.set(r.name, { ...fromFile, enabled: r.enabled, stored: r });
        continue;
      }
      const registration = registrationOf(r, resolveGovernance(config.governance).sandbox.registrations);
      byName.set(r.name, {
        name: r.name,
        ...('config' in registration ? { config: registration.config } : { invalid: registration.error }),
        enabled: r.enabled,
        source: r.source,
        ...(fromFile?.file && { file: fromFile.file }),
        stored: r,
      });
    }
    return {
      config,
      servers: [...byName.values()],
      ...(store && { store }),
      close: async () => {
        await store?.close();
      },
    };
  } catch (error) {
    await store?.close();
    throw error;
  }
}

/** The server called `name`, or NOT_FOUND naming the files looked in and the known names. */
export function findServer(view: SetupView, name: string): ConfiguredServer {
  const found = view.servers.find((s) => s.name === name);
  if (found) return found;
  throw noSuchServer(name, view);
}

/**
 * NOT_FOUND for a server name that is neither in the config files nor registered: where it was
 * looked for, every name that is configured, and the nearest ones ("did you mean").
 */
export function noSuchServer(
  name: string,
  view: {
    readonly config: Pick<LoadedConfig, 'files'>;
    readonly servers: readonly { readonly name: string }[];
  },
  options: { readonly store?: boolean } = {},
): SwitchboardError {
  const known = view.servers.map((s) => s.name);
  const { project, user } = view.config.files;
  const places =
    options.store === false
      ? `${project.path} or ${user.path}`
      : `${project.path}, ${user.path} or the store`;
  return new SwitchboardError(
    'NOT_FOUND',
    `No server named "${name}" in ${places}.${didYouMean(name, known)} ` +
      (known.length > 0
        ? `Configured: ${known.join(', ')}.`
        : 'None is configured: add one with "switchboard add" (or give --config the directory or file that has them).'),
    { details: { server: name, configured: known } },
  );
}

/** Throws `noSuchServer` for the first of `names` that is not configured (files or store). */
export async function requireConfigured(ctx: CliContext, names: readonly string[]): Promise<void> {
  const view = await openSetup(ctx);
  try {
    const missing = names.find((n) => !view.servers.some((s) => s.name === n));
    if (missing !== undefined) throw noSuchServer(missing, view);
  } finally {
    await view.close();
  }
}

/**
 * The network guard a server is connected through: a registration (made at run time, kept in
 * the store) is judged by the config's governance.network at every connect, as the host does;
 * a config-file entry is not.
 */
export function networkFor(view: SetupView, server: ConfiguredServer): NetworkGuard | undefined {
  if (!server.stored || server.stored.source === 'toggle') return undefined;
  return guardFor(resolveGovernance(view.config.governance));
}
