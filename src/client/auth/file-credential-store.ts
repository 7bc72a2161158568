/**
 * The file backend of `CredentialStore`, for the CLI and embedding apps: one JSON file per
 * server and authorization server, `<dataDir>/credentials/<server>/<hash of issuer>.json`,
 * owner-only (0600 files in 0700 directories), replaced atomically, with a lock file beside
 * it for `withLock`. The issuer URL never becomes part of a path: only a hash of it does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { describeError, SwitchboardError } from '../../core/errors.js';
import { withFileLock } from '../../core/files/file-lock.js';
import type { CredentialStore, StoredCredentials } from './credential-store.js';

/** The credential format this version writes and reads; older ones will be migrated on read. */
export const CREDENTIALS_FORMAT_VERSION = 1;

/** What a credentials file (or an encrypted store row, once decrypted) holds. */
export interface CredentialDocument {
  readonly version: number;
  readonly server: string;
  readonly issuer: string;
  /** When it was written, ISO-8601; for people reading the file. */
  readonly savedAt: string;
  readonly credentials: StoredCredentials;
}

/** The text of the credentials of `server` at `issuer`, in the current format. */
export function encodeCredentialDocument(
  server: string,
  issuer: string,
  credentials: StoredCredentials,
): string {
  const doc: CredentialDocument = {
    version: CREDENTIALS_FORMAT_VERSION,
    server,
    issuer,
    savedAt: new Date().toISOString(),
    credentials,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Parses a credential document, refusing anything that is not a complete one with
 * `STORAGE_FAILED`: the message names `where` (a file, a store row) and ends with `fix`.
 */
export function decodeCredentialDocument(text: string, where: string, fix: string): CredentialDocument {
  const fail = (problem: string, cause?: unknown) =>
    new SwitchboardError('STORAGE_FAILED', `The ${where} ${problem}. ${fix}`, {
      ...(cause !== undefined && { cause }),
      details: { where },
    });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail(`is not valid JSON (${describeError(error)}): it is damaged or was cut short`, error);
  }
  if (!isObject(value) || typeof value.version !== 'number')
    throw fail('is not a Switchboard credentials document (it has no format version)');
  if (value.version > CREDENTIALS_FORMAT_VERSION)
    throw fail(
      `was written by a newer Switchboard (format ${value.version}; this version reads up to ` +
        `${CREDENTIALS_FORMAT_VERSION}); upgrade Switchboard to read it`,
    );
  const { server, issuer, credentials } = value;
  if (
    value.version !== CREDENTIALS_FORMAT_VERSION ||
    typeof server !== 'string' ||
    typeof issuer !== 'string'
  )
    throw fail(`has an unknown layout (format ${value.version})`);
  if (!isObject(credentials)) throw fail('holds no credentials object');
  if (
    credentials.tokens !== undefined &&
    !(isObject(credentials.tokens) && typeof credentials.tokens.access_token === 'string')
  )
    throw fail('holds tokens without an access token');
  return {
    version: value.version,
    server,
    issuer,
    savedAt: typeof value.savedAt === 'string' ? value.savedAt : '',
    credentials: credentials as StoredCredentials,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Options of `FileCredentialStore`. */
export interface FileCredentialStoreOptions {
  /** Switchboard's data directory; credentials live in its `credentials/` folder. */
  readonly dataDir: string;
  /** How long `withLock` waits by default, in ms (30 s). */
  readonly lockTimeoutMs?: number;
  /** A lock older than this is taken over even if its holder seems alive, in ms (60 s). */
  readonly staleLockMs?: number;
}

/** Only POSIX systems have permission bits to tighten; elsewhere the directory ACLs apply. */
const POSIX_MODES = process.platform !== 'win32';
const CREDENTIAL_FILE = /^[0-9a-f]{16}\.json$/;
/** `.<hash>.json.<pid>.<random>.tmp`, a write in progress or cut short. */
const TEMP_FILE = /^\.([0-9a-f]{16})\.json\.\d+\.[0-9a-f]+\.tmp$/;

/** `CredentialStore` over owner-only JSON files under the data directory; see the file comment. */
export class FileCredentialStore implements CredentialStore {
  /** The folder holding one subfolder per server. */
  readonly dir: string;
  private readonly lockTimeoutMs: number | undefined;
  private readonly staleLockMs: number | undefined;

  constructor(options: FileCredentialStoreOptions) {
    this.dir = join(resolve(options.dataDir), 'credentials');
    this.lockTimeoutMs = options.lockTimeoutMs;
    this.staleLockMs = options.staleLockMs;
  }

  /** The file holding the credentials of `server` at `issuer` (it may not exist). */
  fileOf(server: string, issuer: string): string {
    return join(this.serverDir(server), `${issuerHash(issuer)}.json`);
  }

  /** The lock file `withLock` creates for `server` at `issuer`. */
  lockFileOf(server: string, issuer: string): string {
    return join(this.serverDir(server), `${issuerHash(issuer)}.lock`);
  }

  async load(server: string, issuer: string): Promise<StoredCredentials | undefined> {
    const file = this.fileOf(server, issuer);
    const doc = await this.read(file);
    if (!doc) return undefined;
    if (doc.server !== server || doc.issuer !== issuer)
      throw new SwitchboardError(
        'STORAGE_FAILED',
        `The credentials file ${file} holds the credentials of "${doc.server}" at ${doc.issuer}, not of ` +
          `"${server}" at ${issuer}: it was copied or renamed. Delete it and log in to ${server} again.`,
        { details: { server, file } },
      );
    await this.tighten(server, file);
    return doc.credentials;
  }

  async save(server: string, issuer: string, credentials: StoredCredentials): Promise<void> {
    const file = this.fileOf(server, issuer);
    const text = encodeCredentialDocument(server, issuer, credentials);
    await this.ensureDirs(server);
    await writeAtomic(file, text);
  }

  async delete(server: string, issuer?: string): Promise<number> {
    const dir = this.serverDir(server);
    const hash = issuer === undefined ? undefined : issuerHash(issuer);
    let deleted = 0;
    for (const name of await this.list(server)) {
      const temp = TEMP_FILE.exec(name);
      const isCredentials = CREDENTIAL_FILE.test(name) && (hash === undefined || name === `${hash}.json`);
      // A write cut short leaves a temporary file holding tokens: a logout removes those too.
      const isTemp = temp !== null && (hash === undefined || temp[1] === hash);
      if (!isCredentials && !isTemp) continue;
      if ((await removeFile(join(dir, name))) && isCredentials) deleted += 1;
    }
    return deleted;
  }

  async issuers(server: string): Promise<string[]> {
    const dir = this.serverDir(server);
    const found: string[] = [];
    for (const name of await this.list(server)) {
      if (!CREDENTIAL_FILE.test(name)) continue;
      const file = join(dir, name);
      const doc = await this.read(file);
      if (doc && doc.server === server && `${issuerHash(doc.issuer)}.json` === name) found.push(doc.issuer);
    }
    return found.sort();
  }

  async withLock<T>(
    server: string,
    issuer: string,
    fn: () => Promise<T>,
    options: { timeoutMs?: number } = {},
  ): Promise<T> {
    const lockFile = this.lockFileOf(server, issuer);
    const timeoutMs = options.timeoutMs ?? this.lockTimeoutMs;
    return withFileLock(lockFile, fn, {
      label: 'credentials lock',
      busyHint: 'Another Switchboard process is probably refreshing the same token; retry.',
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(this.staleLockMs !== undefined && { staleMs: this.staleLockMs }),
    });
  }

  private serverDir(server: string): string {
    // The config allows only these characters, but "." and ".." would still leave the folder.
    if (!/^[A-Za-z0-9_.-]+$/.test(server) || server === '.' || server === '..')
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `"${server}" is not a valid server name for stored credentials; use letters, digits, "_", "." and "-".`,
        { details: { server } },
      );
    return join(this.dir, server);
  }

  /** The names in the server's folder; none when it does not exist. */
  private async list(server: string): Promise<string[]> {
    const dir = this.serverDir(server);
    try {
      return await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError(`Cannot list the credentials folder ${dir}`, dir, error);
    }
  }

  /** The document in `file`, or undefined when there is none. */
  private async read(file: string): Promise<CredentialDocument | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storageError(`Cannot read the credentials file ${file}`, file, error);
    }
    return decodeCredentialDocument(
      text,
      `credentials file ${file}`,
      'To start over, delete the file and log in to the server again; nothing else depends on it.',
    );
  }

  /** Creates the folders owner-only, and narrows them when they were created looser. */
  private async ensureDirs(server: string): Promise<void> {
    const dir = this.serverDir(server);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await restrict(this.dir, 0o700);
      await restrict(dir, 0o700);
    } catch (error) {
      throw storageError(`Cannot create the credentials folder ${dir}`, dir, error);
    }
  }

  /** Narrows the folders and `file` to owner-only if someone widened them. */
  private async tighten(server: string, file: string): Promise<void> {
    try {
      await restrict(this.dir, 0o700);
      await restrict(this.serverDir(server), 0o700);
      await restrict(file, 0o600);
    } catch (error) {
      throw storageError(`Cannot make ${file} private to this user`, file, error);
    }
  }
}

/** A short, path-safe name for an issuer URL: 64 bits of SHA-256, collision-free in practice. */
function issuerHash(issuer: string): string {
  return createHash('sha256').update(issuer, 'utf8').digest('hex').slice(0, 16);
}

/** Sets `path`'s permission bits to `mode` when they allow more (group or others). */
async function restrict(path: string, mode: number): Promise<void> {
  if (!POSIX_MODES) return;
  const current = (await stat(path)).mode & 0o777;
  if ((current & ~mode) !== 0) await chmod(path, mode);
}

/**
 * Replaces `file` atomically (POSIX rename(2)): the text is written to a temporary file in the
 * same folder, flushed to disk, then renamed over `file`; the folder is flushed too so the
 * rename survives a power cut. A crash at any point leaves the old file or the new one.
 */
async function writeAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw storageError(`Cannot write the credentials file ${file}; the previous one was kept`, file, error);
  }
  await syncDir(dir);
}

/** Flushes a folder's entries; not every platform can open a folder, which is fine there. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot fsync a directory; its rename is durable enough for credentials.
  }
}

/** Deletes `file`; `false` when it was already gone. */
async function removeFile(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw storageError(`Cannot delete the credentials file ${file}`, file, error);
  }
}

function storageError(what: string, path: string, error: unknown): SwitchboardError {
  return new SwitchboardError(
    'STORAGE_FAILED',
    `${what}: ${describeError(error)}. Check that this user owns the folder and may write to it.`,
    { cause: error, details: { path } },
  );
}
