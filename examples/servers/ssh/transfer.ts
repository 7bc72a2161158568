/**
 * `upload` and `download` over SFTP (as the login user), recursive on directories, with the
 * landing rule of `transfer-paths.ts`, missing parent directories created, local paths held
 * inside the local root, and the limits checked before the first byte moves (size, entries,
 * depth) and again while it moves (a file that grows, a deadline for the whole transfer).
 * Symlinks and special files are skipped and listed, never followed.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper, Stats } from 'ssh2';
import type { SshConnection } from './connection.js';
import { SshError } from './errors.js';
import { existingLocal, writableLocal } from './local-root.js';
import type { SshSettings } from './settings.js';
import { landingPath, safeEntryName, sourceName } from './transfer-paths.js';

/** What a transfer did. */
export interface TransferReport {
  readonly destination: string;
  readonly files: number;
  readonly directories: number;
  readonly bytes: number;
  readonly skipped: readonly string[];
}

interface Item {
  readonly rel: string;
  readonly kind: 'file' | 'dir';
  readonly size: number;
}

// SFTP status code SSH_FX_NO_SUCH_FILE (draft-ietf-secsh-filexfer-02 §7), as ssh2 sets `code`.
const NO_SUCH_FILE = 2;

function remoteStat(sftp: SFTPWrapper, path: string): Promise<Stats | undefined> {
  return new Promise((resolve, reject) =>
    sftp.stat(path, (error, stats) => {
      if (!error) resolve(stats);
      else if ((error as { code?: number }).code === NO_SUCH_FILE) resolve(undefined);
      else reject(remoteError(`Cannot stat ${path}`, error));
    }),
  );
}

function remoteError(what: string, cause: unknown): SshError {
  return new SshError(
    'TRANSFER_FAILED',
    `${what} on the remote host (${(cause as Error).message}); check the path and its permissions.`,
    {
      cause,
    },
  );
}

async function remoteMkdirs(sftp: SFTPWrapper, path: string): Promise<void> {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    if (prefix === '' || prefix === '.') continue;
    const stats = await remoteStat(sftp, prefix);
    if (stats?.isDirectory()) continue;
    if (stats !== undefined)
      throw new SshError('TRANSFER_FAILED', `${prefix} exists on the remote host and is not a directory.`);
    await new Promise<void>((resolve, reject) =>
      sftp.mkdir(prefix, (error) =>
        error ? reject(remoteError(`Cannot create ${prefix}`, error)) : resolve(),
      ),
    );
  }
}

function limitsError(settings: SshSettings, what: string): SshError {
  return new SshError(
    'LIMIT',
    `${what}: one transfer moves at most ${settings.transferMaxBytes} bytes, ${settings.transferMaxEntries} entries, ${settings.transferMaxDepth} levels deep; transfer a smaller part.`,
  );
}

/** Walks a tree with the limits, listing what it will move and what it skips. */
async function walk(
  settings: SshSettings,
  list: (rel: string) => Promise<{ name: string; kind: 'file' | 'dir' | 'other'; size: number }[]>,
): Promise<{ items: Item[]; skipped: string[] }> {
  const items: Item[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  const visit = async (rel: string, depth: number): Promise<void> => {
    if (depth > settings.transferMaxDepth) throw limitsError(settings, `${rel} is too deep`);
    for (const entry of await list(rel)) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.kind === 'other') {
        skipped.push(child);
        continue;
      }
      if (items.length + 1 > settings.transferMaxEntries) throw limitsError(settings, 'Too many entries');
      bytes += entry.size;
      if (bytes > settings.transferMaxBytes) throw limitsError(settings, 'Too many bytes');
      items.push({ rel: child, kind: entry.kind, size: entry.size });
      if (entry.kind === 'dir') await visit(child, depth + 1);
    }
  };
  await visit('', 1);
  return { items, skipped };
}

/** Counts bytes through a stream and fails past the budget (a source that grew mid-transfer). */
function budget(settings: SshSettings, spent: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      spent.bytes += chunk.length;
      if (spent.bytes > settings.transferMaxBytes)
        callback(limitsError(settings, 'The data grew past the limit'));
      else callback(null, chunk);
    },
  });
}

async function withSftp<T>(
  connection: SshConnection,
  settings: SshSettings,
  run: (sftp: SFTPWrapper, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return connection.using(() => transferOn(connection, settings, run));
}

async function transferOn<T>(
  connection: SshConnection,
  settings: SshSettings,
  run: (sftp: SFTPWrapper, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const sftp = await connection.sftp();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.transferTimeoutMs);
  try {
    return await run(sftp, controller.signal);
  } catch (error) {
    if (controller.signal.aborted)
      throw new SshError(
        'TIMEOUT',
        `The transfer did not finish in ${settings.transferTimeoutMs / 1000} s (SSH_MCP_TRANSFER_TIMEOUT); transfer less at once.`,
        { cause: error },
      );
    if (error instanceof SshError) throw error;
    // A local or remote I/O failure mid-transfer (permission denied, disk full, a file gone).
    throw new SshError(
      'TRANSFER_FAILED',
      `The transfer failed (${(error as Error).message}); check the paths and their permissions.`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    sftp.end();
  }
}

/** Uploads a local file or directory tree (inside the local root) to `remotePath`. */
export async function upload(
  connection: SshConnection,
  settings: SshSettings,
  localPath: string,
  remotePath: string,
): Promise<TransferReport> {
  const source = await existingLocal(settings.localRoot, localPath);
  const info = await stat(source);
  if (!info.isFile() && !info.isDirectory())
    throw new SshError(
      'INVALID_ARGUMENT',
      `${localPath} is neither a file nor a directory; upload a file or a folder.`,
    );
  const tree = info.isDirectory()
    ? await walk(settings, async (rel) =>
        Promise.all(
          (await readdir(join(source, rel), { withFileTypes: true })).map(async (e) => {
            const kind: 'file' | 'dir' | 'other' = e.isFile() ? 'file' : e.isDirectory() ? 'dir' : 'other';
            return {
              name: e.name,
              kind,
              size: kind === 'file' ? (await lstat(join(source, rel, e.name))).size : 0,
            };
          }),
        ),
      )
    : { items: [], skipped: [] };
  if (info.isFile() && info.size > settings.transferMaxBytes)
    throw limitsError(settings, `${localPath} is too large`);

  return withSftp(connection, settings, async (sftp, signal) => {
    const existing = await remoteStat(sftp, remotePath.replace(/\/+$/, '') || '/');
    const destination = landingPath(
      remotePath,
      existing?.isDirectory() ?? false,
      basename(source),
      posix.join,
    );
    const spent = { bytes: 0 };
    const put = async (from: string, to: string) => {
      await pipeline(createReadStream(from), budget(settings, spent), quiet(sftp.createWriteStream(to)), {
        signal,
      });
    };
    if (info.isFile()) {
      await remoteMkdirs(sftp, posix.dirname(destination));
      await put(source, destination);
      return { destination, files: 1, directories: 0, bytes: spent.bytes, skipped: [] };
    }
    await remoteMkdirs(sftp, destination);
    let files = 0;
    let directories = 1;
    for (const item of tree.items) {
      const to = posix.join(destination, item.rel);
      if (item.kind === 'dir') {
        await remoteMkdirs(sftp, to);
        directories++;
      } else {
        await put(join(source, item.rel), to);
        files++;
      }
    }
    return { destination, files, directories, bytes: spent.bytes, skipped: tree.skipped };
  });
}

/** Downloads a remote file or directory tree to `localPath` (inside the local root). */
export async function download(
  connection: SshConnection,
  settings: SshSettings,
  remotePath: string,
  localPath: string,
): Promise<TransferReport> {
  return withSftp(connection, settings, async (sftp, signal) => {
    const info = await remoteStat(sftp, remotePath);
    if (info === undefined)
      throw new SshError(
        'TRANSFER_FAILED',
        `${remotePath} does not exist on the remote host; check the path.`,
      );
    if (!info.isFile() && !info.isDirectory())
      throw new SshError(
        'INVALID_ARGUMENT',
        `${remotePath} is neither a file nor a directory on the remote host.`,
      );
    const name = sourceName(remotePath);
    const target = await writableLocal(settings.localRoot, localPath);
    const targetIsDir = await stat(target).then(
      (s) => s.isDirectory(),
      () => false,
    );
    const destination = await writableLocal(
      settings.localRoot,
      landingPath(localPath, targetIsDir, name, join),
    );
    const spent = { bytes: 0 };
    const get = async (from: string, rel: string) => {
      // Each file is checked against the root again (an existing symlink in the tree), written
      // beside its destination and renamed over it, so a failed transfer leaves the old file.
      const to = await writableLocal(settings.localRoot, rel === '' ? destination : join(destination, rel));
      await mkdir(dirname(to), { recursive: true });
      const part = `${to}.${randomBytes(4).toString('hex')}.part`;
      try {
        await pipeline(
          quiet(sftp.createReadStream(from)),
          budget(settings, spent),
          createWriteStream(part, { flags: 'wx' }),
          { signal },
        );
        await rename(part, to);
      } finally {
        await rm(part, { force: true });
      }
    };
    if (info.isFile()) {
      if (info.size > settings.transferMaxBytes) throw limitsError(settings, `${remotePath} is too large`);
      await get(remotePath, '');
      return { destination, files: 1, directories: 0, bytes: spent.bytes, skipped: [] };
    }
    const unsafe: string[] = [];
    const tree = await walk(
      settings,
      (rel) =>
        new Promise((resolve, reject) =>
          sftp.readdir(rel === '' ? remotePath : posix.join(remotePath, rel), (error, list) => {
            if (error) return reject(remoteError(`Cannot list ${posix.join(remotePath, rel)}`, error));
            resolve(
              list
                .filter((e) => {
                  if (e.filename === '.' || e.filename === '..') return false;
                  if (safeEntryName(e.filename)) return true;
                  unsafe.push(e.filename);
                  return false;
                })
                .map((e) => ({
                  name: e.filename,
                  kind: e.attrs.isFile() ? 'file' : e.attrs.isDirectory() ? 'dir' : 'other',
                  size: e.attrs.isFile() ? e.attrs.size : 0,
                })),
            );
          }),
        ),
    );
    await mkdir(destination, { recursive: true });
    let files = 0;
    let directories = 1;
    for (const item of tree.items) {
      if (item.kind === 'dir') {
        await mkdir(await writableLocal(settings.localRoot, join(destination, item.rel)), {
          recursive: true,
        });
        directories++;
      } else {
        await get(posix.join(remotePath, item.rel), item.rel);
        files++;
      }
    }
    return { destination, files, directories, bytes: spent.bytes, skipped: [...tree.skipped, ...unsafe] };
  });
}

/**
 * An SFTP stream whose handle may still be closing when the session ends: that close can fail
 * late ("No response from server"), after the pipeline has finished and stopped listening, and
 * an 'error' nobody hears ends the process (the file tools met it: remote-fs.ts). Errors while
 * the pipeline runs still reach it; only a late one is dropped.
 */
function quiet<T extends NodeJS.EventEmitter>(stream: T): T {
  stream.on('error', () => undefined);
  return stream;
}
