import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ConfigFile,
  mergeConfigs,
  normalizeConfigFile,
  parseConfigText,
} from '../core/config/config-file.js';
import { describeError, SwitchboardError } from '../core/errors.js';

/** Where Switchboard's two config files are looked for. */
export interface ConfigLocations {
  readonly projectDir: string;
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

/** `<projectDir>/switchboard.json`. */
export function projectConfigPath(projectDir: string): string {
  return join(projectDir, 'switchboard.json');
}

/** `<homeDir>/.switchboard/config.json`. */
export function userConfigPath(homeDir: string): string {
  return join(homeDir, '.switchboard', 'config.json');
}

/**
 * Reads a file's text, or undefined when it does not exist. Other failures (permissions, a
 * directory in its place) are CONFIG_READ_FAILED.
 */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SwitchboardError(
      'CONFIG_READ_FAILED',
      `Could not read ${file}: ${describeError(error)}. Check that it is a readable file.`,
      { cause: error, details: { file } },
    );
  }
}

/** Reads and normalizes one of our config files; a missing file is an empty config. */
export async function loadConfigFile(file: string): Promise<ConfigFile & { readonly found: boolean }> {
  const text = await readTextIfExists(file);
  if (text === undefined) return { servers: [], found: false };
  return { ...normalizeConfigFile(parseConfigText(text, file), file), found: true };
}

/**
 * Loads the user's and the project's config and merges them: a project entry replaces the
 * user entry of the same name. Missing files are fine; an invalid one is CONFIG_INVALID.
 */
export async function loadConfig(locations: ConfigLocations): Promise<LoadedConfig> {
  const userPath = userConfigPath(locations.homeDir);
  const projectPath = projectConfigPath(locations.projectDir);
  const [user, project] = await Promise.all([loadConfigFile(userPath), loadConfigFile(projectPath)]);
  const sources: Record<string, string> = {};
  for (const s of user.servers) sources[s.name] = userPath;
  for (const s of project.servers) sources[s.name] = projectPath;
  return {
    ...mergeConfigs(user, project),
    sources,
    files: {
      user: { path: userPath, found: user.found },
      project: { path: projectPath, found: project.found },
    },
  };
}
