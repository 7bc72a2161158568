/**
 * Aliases: named SSH targets kept in one JSON file that holds no secrets (never a password),
 * written atomically at mode 0600 and refused when its mode lets anyone else in — the file
 * decides where commands go and which key is used, so another user who could edit it could
 * redirect them.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { SshError } from './errors.js';

/** How the login user authenticates: a key (or ssh-agent), or a password asked for each time. */
export type LoginAuth = 'key' | 'password';
/** How `exec(sudo=true)` runs: `sudo -n`, `sudo -S` with an elicited password, or not at all. */
export type SudoMethod = 'nopasswd' | 'prompt' | 'none';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// A POSIX-portable user name (useradd's rule, plus upper case), so nothing odd reaches sudo -u.
export const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;
// A host name or an IP literal; no spaces, no option-looking leading dash.
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})|\[?[0-9A-Fa-f:.]+\]?)$/;

/** One alias as stored and as `add_alias` takes it. */
export const AliasSchema = z.strictObject({
  host: z.string().regex(HOST, 'a host name or an IP address'),
  port: z.number().int().min(1).max(65_535).default(22),
  user: z.string().regex(USER_NAME, 'a user name such as "deploy"'),
  auth: z.enum(['key', 'password']).default('key'),
  key_path: z.string().min(1).max(4096).optional(),
  sudo: z.strictObject({ method: z.enum(['nopasswd', 'prompt', 'none']).default('prompt') }).default({
    method: 'prompt',
  }),
  accept_new_host_key: z.boolean().default(false),
  description: z.string().max(500).optional(),
});

/** A stored alias, after defaults. */
export type Alias = z.output<typeof AliasSchema>;

const FileSchema = z.strictObject({ aliases: z.record(z.string().regex(NAME), AliasSchema) });

/** Checks an alias name: letters, digits, `.`, `_`, `-`, up to 64, not starting with punctuation. */
export function checkAliasName(name: string): string {
  if (!NAME.test(name))
    throw new SshError(
      'INVALID_ARGUMENT',
      `"${name}" is not a valid alias name: use letters, digits, ".", "_" or "-" (up to 64, starting with a letter or digit).`,
    );
  return name;
}

/**
 * Reads `user@host[:port]` (or `user@[v6]:port`) as an ad-hoc target with the defaults of an
 * alias: key login, sudo by prompt, no first-use acceptance. Returns undefined for a plain name.
 */
export function parseTarget(spec: string): Alias | undefined {
  const at = spec.indexOf('@');
  if (at < 0) return undefined;
  const user = spec.slice(0, at);
  let rest = spec.slice(at + 1);
  let port = 22;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (bracketed) {
    rest = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon > 0 && rest.indexOf(':') === colon) {
      port = Number(rest.slice(colon + 1));
      rest = rest.slice(0, colon);
    }
  }
  const parsed = AliasSchema.safeParse({ host: rest, port, user });
  if (!parsed.success)
    throw new SshError(
      'INVALID_ARGUMENT',
      `"${spec}" is not a target: write user@host or user@host:port (ports 1–65535), or use an alias name.`,
    );
  return parsed.data;
}

/** The aliases file: read on every use (another process may have changed it), written whole. */
export class AliasStore {
  constructor(readonly file: string) {}

  /** Every alias, by name. A missing file is an empty one. */
  async all(): Promise<Record<string, Alias>> {
    let text: string;
    try {
      const info = await stat(this.file);
      if ((info.mode & 0o077) !== 0)
        throw new SshError(
          'ALIASES_FILE',
          `${this.file} is readable or writable by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 on it.`,
        );
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      if (error instanceof SshError) throw error;
      throw new SshError('ALIASES_FILE', `Cannot read ${this.file}; check that it is a readable file.`, {
        cause: error,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SshError('ALIASES_FILE', `${this.file} is not valid JSON; fix it or remove it.`, {
        cause: error,
      });
    }
    const parsed = FileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SshError(
        'ALIASES_FILE',
        `${this.file}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}; fix that entry.`,
      );
    }
    return parsed.data.aliases;
  }

  /** The alias of that name, or an error listing what exists. */
  async get(name: string): Promise<Alias> {
    const aliases = await this.all();
    const alias = aliases[name];
    if (alias === undefined) {
      const known = Object.keys(aliases);
      throw new SshError(
        'UNKNOWN_ALIAS',
        `No alias "${name}". ${known.length > 0 ? `Known: ${known.join(', ')}.` : 'None is defined yet.'} Add it with add_alias, or pass user@host.`,
      );
    }
    return alias;
  }

  /** Adds or replaces one alias. */
  async put(name: string, alias: Alias): Promise<void> {
    const aliases = await this.all();
    aliases[checkAliasName(name)] = alias;
    await this.write(aliases);
  }

  /** Removes one alias; false when there was none. */
  async remove(name: string): Promise<boolean> {
    const aliases = await this.all();
    if (!(name in aliases)) return false;
    delete aliases[name];
    await this.write(aliases);
    return true;
  }

  // Atomic: a temporary file created at 0600 in the same folder, synced, then renamed over the
  // old one, so a reader sees the old file or the new one, never half of either.
  private async write(aliases: Record<string, Alias>): Promise<void> {
    const temp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify({ aliases }, null, 2)}\n`);
        await handle.chmod(0o600);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
    } catch (error) {
      await rm(temp, { force: true });
      throw new SshError('ALIASES_FILE', `Cannot write ${this.file}; check the folder's permissions.`, {
        cause: error,
      });
    }
  }
}
