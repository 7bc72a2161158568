/**
 * Where the key that encrypts stored credentials comes from: `SWITCHBOARD_SECRET_KEY` (32
 * bytes as 64 hex digits or base64) when it is set — the choice for a gateway whose data dir
 * is shared or backed up — or else `<dataDir>/secret.key`, created owner-only with 32 random
 * bytes on first use. Losing the key loses the stored credentials (log in again), nothing more.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeError, SwitchboardError } from '../../core/errors.js';
import type { SecretKey } from './credential-cipher.js';

/** The environment variable holding the key. */
export const SECRET_KEY_ENV = 'SWITCHBOARD_SECRET_KEY';

/** Options of `loadSecretKey`. */
export interface LoadSecretKeyOptions {
  /** Switchboard's data directory, home of `secret.key`. */
  readonly dataDir: string;
  /** The environment to read `SWITCHBOARD_SECRET_KEY` from (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * A 32-byte key written as 64 hex digits or as base64 (standard or URL-safe); `undefined`
 * when `text` is neither.
 */
export function parseSecretKey(text: string): Uint8Array | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const bytes = Buffer.from(trimmed, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/**
 * The credentials key: from `SWITCHBOARD_SECRET_KEY` if set, else from `<dataDir>/secret.key`,
 * which is created (0600, in a 0700 data dir if that is new) when missing. Two processes
 * starting together end up with the same key file. Throws `CONFIG_INVALID` for a malformed
 * variable and `STORAGE_FAILED` for a damaged or unreadable key file.
 */
export async function loadSecretKey(options: LoadSecretKeyOptions): Promise<SecretKey> {
  const fromEnv = (options.env ?? process.env)[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const bytes = parseSecretKey(fromEnv);
    if (!bytes)
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `${SECRET_KEY_ENV} is not a 32-byte key. Set it to 64 hex digits or 32 bytes in base64, ` +
          'e.g. the output of `openssl rand -base64 32`, or unset it to use the key file.',
        { details: { variable: SECRET_KEY_ENV } },
      );
    return { bytes, source: SECRET_KEY_ENV };
  }
  const file = join(resolve(options.dataDir), 'secret.key');
  const source = `the key file ${file}`;
  try {
    await mkdir(resolve(options.dataDir), { recursive: true, mode: 0o700 });
    let text = await readIfExists(file);
    if (text === undefined) {
      await createKeyFile(file);
      text = (await readIfExists(file)) ?? '';
    }
    await restrictToOwner(file);
    const bytes = parseSecretKey(text);
    if (bytes) return { bytes, source };
  } catch (error) {
    throw new SwitchboardError(
      'STORAGE_FAILED',
      `Cannot read or create ${source}: ${describeError(error)}. Check that this user owns the data ` +
        `directory, or set ${SECRET_KEY_ENV}.`,
      { cause: error, details: { file } },
    );
  }
  throw new SwitchboardError(
    'STORAGE_FAILED',
    `${source.charAt(0).toUpperCase()}${source.slice(1)} does not hold a 32-byte key (64 hex digits or ` +
      'base64). Restore it from a backup; or, if you accept logging in to every OAuth server again, ' +
      'delete it and a new key will be made.',
    { details: { file } },
  );
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes a new random key to a private temporary file, then links it into place: link(2) fails
 * when the key file exists, so a concurrent creator's key wins and nobody sees a half-written one.
 */
async function createKeyFile(file: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${randomBytes(32).toString('base64')}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temp, file).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Narrows the key file to 0600 when someone widened it (POSIX only; Windows uses ACLs). */
async function restrictToOwner(file: string): Promise<void> {
  if (process.platform === 'win32') return;
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
}
