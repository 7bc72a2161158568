import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { withConfigLock } from './config-lock.js';

/**
 * The data dir's `secrets.env`: values that config files refer to as `${VAR}` but must not
 * hold themselves, such as the tokens `switchboard import` takes out of another client's
 * config. One `NAME=value` a line (the value as a JSON string when it needs quoting; `#`
 * starts a comment), owner-only (0600), never inside a project folder a person commits. The
 * loader reads it under the environment: a variable set in the environment wins.
 */
export const SECRETS_ENV_FILE = 'secrets.env';

/** `<dataDir>/secrets.env`. */
export function secretsEnvPath(dataDir: string): string {
  return join(dataDir, SECRETS_ENV_FILE);
}

/** Parses the file's text: a malformed line is skipped (it could be a half-edited value). Pure. */
export function parseSecretsEnv(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    const value = match[2]!;
    if (value.startsWith('"')) {
      try {
        const parsed: unknown = JSON.parse(value);
        if (typeof parsed === 'string') out[match[1]!] = parsed;
      } catch {
        // a broken quoted value: left out rather than sent half-read
      }
    } else out[match[1]!] = value;
  }
  return out;
}

/** The file's text for `values`. Pure. */
export function formatSecretsEnv(values: Readonly<Record<string, string>>): string {
  const lines = [
    '# Secrets that switchboard.json refers to as ${NAME}; read by Switchboard, owner-only.',
    '# A variable set in the environment wins over the value here.',
    ...Object.entries(values).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The variables of `<dataDir>/secrets.env`; none when it does not exist. */
export async function readSecretsEnv(dataDir: string): Promise<Record<string, string>> {
  try {
    return parseSecretsEnv(await readFile(secretsEnvPath(dataDir), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null);
    throw error;
  }
}

/** Adds (or replaces) variables in `<dataDir>/secrets.env`, atomically and under its lock. */
export async function addSecrets(dataDir: string, values: Readonly<Record<string, string>>): Promise<string> {
  const file = secretsEnvPath(dataDir);
  await withConfigLock(file, async () => {
    const current = await readSecretsEnv(dataDir);
    await writeFileAtomic(file, formatSecretsEnv({ ...current, ...values }), { mode: 0o600 });
  });
  return file;
}
