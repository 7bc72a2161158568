import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './cli-context.js';

/** Where the project's configuration is: its directory and its file. */
export interface ConfigLocation {
  readonly projectDir: string;
  readonly projectFile: string;
}

/** The project config file's name in a directory. */
const PROJECT_FILE = 'switchboard.json';

/**
 * What `--config PATH` names: a directory holding `switchboard.json` (which need not exist
 * yet: `add` makes it), or a config file itself. A path that is not there is a mistake (exit
 * 2) — quietly reading nothing from it would show "no servers configured" for a typo.
 */
export function configLocation(path: string | undefined, cwd: string): ConfigLocation {
  if (path === undefined) return { projectDir: cwd, projectFile: join(cwd, PROJECT_FILE) };
  const full = resolve(cwd, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (stat === undefined)
    throw new UsageError(
      `--config ${path}: ${full} does not exist. Give the directory that holds switchboard.json, or the config file itself.`,
    );
  if (stat.isDirectory()) return { projectDir: full, projectFile: join(full, PROJECT_FILE) };
  return { projectDir: dirname(full), projectFile: full };
}
