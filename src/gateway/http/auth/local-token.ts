import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchboardError } from '../../../core/errors.js';

/**
 * The local credential: what proves a caller is this machine's owner when the gateway runs
 * without configured authentication (`gateway.auth.mode: none`). A loopback address says only
 * that the caller is on this machine — any local user or process, and on a shared machine that
 * is not the owner. So changing state (the API's POST, PUT, PATCH and DELETE, answering
 * approvals, the management tools that register, remove or toggle servers) needs the token in
 * a file only the owner can read: `local-token` in the data dir, mode 0600, made at the first
 * start and kept across restarts. Clients send it as `Authorization: Bearer <token>`; the
 * dashboard gets it once from the URL `switchboard start` prints and opens, in exchange for a
 * cookie (local-login.ts). The CLI verbs that talk to a running daemon read it from the file.
 */

/** The token file's name in the data dir. */
export const LOCAL_TOKEN_FILE = 'local-token';

/** The token and where it is kept (no file when an embedding app made one in memory). */
export interface LocalToken {
  readonly value: string;
  readonly file?: string;
}

/** A fresh token: 32 random bytes, base64url (a bearer token's character set, RFC 6750 §2.1). */
export function newLocalToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The token of `dataDir`, made when there is none. A file that others could read (group or
 * world bits set) is replaced with a new token, since the old one may have been read; a file
 * that is not a regular file of this user is refused (someone else could have put it there).
 */
export async function ensureLocalToken(dataDir: string): Promise<LocalToken> {
  const file = join(dataDir, LOCAL_TOKEN_FILE);
  const existing = await readLocalTokenFile(file, { repair: true });
  if (existing !== undefined) return { value: existing, file };
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const value = newLocalToken();
  try {
    // `wx`: never over a file another process made meanwhile; 0600 from the start.
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(`${value}\n`);
    } finally {
      await handle.close();
    }
    return { value, file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process made it first: use that one.
    const made = await readLocalTokenFile(file, { repair: false });
    if (made === undefined) throw error;
    return { value: made, file };
  }
}

/** The token in `dataDir`, or undefined when there is none (no daemon has started there). */
export async function readLocalToken(dataDir: string): Promise<string | undefined> {
  return readLocalTokenFile(join(dataDir, LOCAL_TOKEN_FILE), { repair: false });
}

async function readLocalTokenFile(
  file: string,
  options: { readonly repair: boolean },
): Promise<string | undefined> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const posix = process.platform !== 'win32';
  const ours = !posix || stats.uid === process.getuid?.();
  if (!stats.isFile() || !ours) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${file} is not a file of this user, so its token cannot be trusted. Remove it; a new one is made at the next start.`,
      { details: { file } },
    );
  }
  if (posix && (stats.mode & 0o077) !== 0) {
    if (!options.repair) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `${file} can be read by other users. Start the gateway again: it replaces the token with a new one only you can read.`,
        { details: { file } },
      );
    }
    await replace(file);
  }
  const value = (await readFile(file, 'utf8')).trim();
  if (!/^[A-Za-z0-9_-]{32,}$/.test(value)) {
    if (!options.repair) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `${file} holds no valid token. Start the gateway again to make a new one.`,
        { details: { file } },
      );
    }
    await replace(file);
    return (await readFile(file, 'utf8')).trim();
  }
  return value;
}

/** Writes a new token to `file` (0600) in place of the one there. */
async function replace(file: string): Promise<void> {
  const next = `${file}.${process.pid}.new`;
  await rm(next, { force: true });
  const handle = await open(next, 'wx', 0o600);
  try {
    await handle.writeFile(`${newLocalToken()}\n`);
  } finally {
    await handle.close();
  }
  await chmod(next, 0o600);
  await rename(next, file);
}

/**
 * Checks presented tokens against one, in constant time: both sides are hashed first, so
 * neither the length nor the content shows in the timing.
 */
export class LocalCredential {
  readonly #digest: Buffer;

  constructor(readonly token: LocalToken) {
    this.#digest = digest(token.value);
  }

  /** Whether `presented` is the token. */
  matches(presented: string): boolean {
    return timingSafeEqual(digest(presented), this.#digest);
  }

  /** Where the token is, for messages: the file, or the embedding app that made it. */
  get where(): string {
    return this.token.file ?? 'the token the embedding application was given (HttpGateway.localToken)';
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The name of the cookie that carries the token to the gateway listening on `port`. Cookies
 * are kept per host, not per port (RFC 6265 §8.5), so gateways on other ports of 127.0.0.1
 * would overwrite each other's under one name.
 */
export function localCookieName(port: number): string {
  return `switchboard-token-${port}`;
}
