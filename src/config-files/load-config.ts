import {
  type ConfigFile,
  mergeConfigs,
  type NormalizeConfigOptions,
  readConfigText,
} from '../core/config/config-file.js';
import { projectConfigPath, userConfigPath } from './config-paths.js';
import { readTextIfExists } from './read-text.js';

export { readTextIfExists } from './read-text.js';

/** Where Switchboard's two config files are looked for. */
export interface ConfigLocations {
  readonly projectDir: string;
  /** The project's config file, when it is not `<projectDir>/switchboard.json` (`--config FILE`). */
  readonly projectFile?: string;
  readonly homeDir: string;
}

/** The merged config and the files it came from (`found: false` for a missing file). */
export interface LoadedConfig extends ConfigFile {
  /** The file each server came from, by name. */
  readonly sources: Readonly<Record<string, string>>;
  readonly files: {
    readonly user: { readonly path: string; readonly found: boolean };
    readonly project: { readonly path: string; readonly found: boolean };
  };
}

export { projectConfigPath, userConfigPath } from './config-paths.js';

/**
 * Reads and normalizes one of our config files; a missing file is an empty config. With
 * `invalidEntries: 'collect'`, entries that do not normalize come back in `invalid`.
 */
export async function loadConfigFile(
  file: string,
  options: NormalizeConfigOptions = {},
): Promise<ConfigFile & { readonly found: boolean }> {
  const text = await readTextIfExists(file);
  if (text === undefined)
    return { servers: [], ...(options.invalidEntries === 'collect' && { invalid: [] }), found: false };
  return { ...readConfigText(text, file, options), found: true };
}

/**
 * Loads the user's and the project's config and merges them: a project entry replaces the
 * user entry of the same name. Missing files are fine; an invalid one is CONFIG_INVALID —
 * or, with `invalidEntries: 'collect'`, an invalid entry is listed in `invalid` (with the
 * file it is in, in `sources`) and the rest loads.
 */
export async function loadConfig(
  locations: ConfigLocations,
  options: NormalizeConfigOptions = {},
): Promise<LoadedConfig> {
  const userPath = userConfigPath(locations.homeDir);
  const projectPath = locations.projectFile ?? projectConfigPath(locations.projectDir);
  const [user, project] = await Promise.all([
    loadConfigFile(userPath, options),
    loadConfigFile(projectPath, options),
  ]);
  // No prototype: a server may be called "constructor" or "toString".
  const sources: Record<string, string> = Object.create(null);
  for (const s of [...user.servers, ...(user.invalid ?? [])]) sources[s.name] = userPath;
  for (const s of [...project.servers, ...(project.invalid ?? [])]) sources[s.name] = projectPath;
  return {
    ...mergeConfigs(user, project),
    sources,
    files: {
      user: { path: userPath, found: user.found },
      project: { path: projectPath, found: project.found },
    },
  };
}
