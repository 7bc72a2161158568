import { join } from 'node:path';

/**
 * Where Switchboard's two config files are, by name only: a module without the schema, so a
 * CLI verb can look for them without loading it.
 */

/** `<projectDir>/switchboard.json`. */
export function projectConfigPath(projectDir: string): string {
  return join(projectDir, 'switchboard.json');
}

/** `<homeDir>/.switchboard/config.json`. */
export function userConfigPath(homeDir: string): string {
  return join(homeDir, '.switchboard', 'config.json');
}
