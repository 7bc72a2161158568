/**
 * Rewriting a remote file safely over SFTP. The new content goes to a temporary file beside the
 * original (same folder, so the rename stays on one filesystem), gets the original's mode and
 * owner, is flushed, and is renamed over the original in one step (`posix-rename@openssh.com`)
 * — readers see the old file or the new one, never half of it. Just before the rename the
 * original is read again and compared with what the edit started from: a file someone else
 * changed meanwhile is left alone (`FILE_CHANGED`). Where no temporary file can be made there
 * (a folder the login user may not write) or the owner cannot be kept (a file of another user
 * that the login user may write), the file is rewritten in place instead: not atomic, but its
 * owner, inode and links stay.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Stats } from 'ssh2';
import { SshError } from './errors.js';
import type { RemoteFs } from './remote-fs.js';

/** The file as the edit read it: its resolved path, bytes and attributes. */
export interface Original {
  readonly path: string;
  readonly data: Buffer;
  readonly stats: Stats;
}

/** How the file was written. */
export type WriteWay = 'atomically' | 'in place';

async function checkUnchanged(fs: RemoteFs, original: Original, maxBytes: number): Promise<void> {
  const now = await fs
    .readWhole(original.path, Math.max(maxBytes, original.data.length))
    .catch((error: unknown) => {
      // Grown past the limit since it was read: changed, as far as this edit is concerned.
      if (error instanceof SshError && error.code === 'FILE_TOO_LARGE') return undefined;
      throw error;
    });
  if (now === undefined || !now.equals(original.data))
    throw new SshError(
      'FILE_CHANGED',
      `${original.path} changed while it was being edited (another writer); nothing was written. Read it again and redo the edit.`,
    );
}

async function removeQuietly(fs: RemoteFs, path: string): Promise<void> {
  await fs.unlink(path).catch(() => undefined);
}

async function writeInPlace(
  fs: RemoteFs,
  original: Original,
  data: Buffer,
  maxBytes: number,
): Promise<WriteWay> {
  await checkUnchanged(fs, original, maxBytes);
  const handle = await fs.open(original.path, 'w');
  try {
    await fs.writeAll(original.path, handle, data);
    await fs.fsync(handle);
  } finally {
    await fs.close(original.path, handle);
  }
  return 'in place';
}

/** Replaces the content of `original.path` with `data`; says how it was written. */
export async function rewriteFile(
  fs: RemoteFs,
  original: Original,
  data: Buffer,
  options: { readonly maxBytes: number },
): Promise<WriteWay> {
  const { path, stats } = original;
  const mode = stats.mode & 0o7777;
  const temp = posix.join(
    posix.dirname(path),
    `.${posix.basename(path)}.${randomBytes(6).toString('hex')}.edit`,
  );
  let handle: Buffer;
  try {
    handle = await fs.open(temp, 'wx', mode);
  } catch (error) {
    if (error instanceof SshError && error.code === 'PERMISSION_DENIED')
      return writeInPlace(fs, original, data, options.maxBytes);
    throw error;
  }
  let closed = false;
  try {
    await fs.writeAll(temp, handle, data);
    // The umask may have narrowed the mode given at creation.
    await fs.fchmod(temp, handle, mode);
    const made = await fs.fstat(temp, handle);
    if (made.uid !== stats.uid || made.gid !== stats.gid) {
      const kept = await fs.fchown(temp, handle, stats.uid, stats.gid).then(
        () => true,
        () => false,
      );
      if (!kept) {
        await fs.close(temp, handle);
        closed = true;
        await removeQuietly(fs, temp);
        return writeInPlace(fs, original, data, options.maxBytes);
      }
    }
    await fs.fsync(handle);
    await fs.close(temp, handle);
    closed = true;
    await checkUnchanged(fs, original, options.maxBytes);
    if (!(await fs.posixRename(temp, path))) {
      // SFTP v3's own rename refuses an existing target: move the original aside first.
      const aside = `${temp}.old`;
      await fs.rename(path, aside);
      try {
        await fs.rename(temp, path);
      } catch (error) {
        await fs.rename(aside, path);
        throw error;
      }
      await removeQuietly(fs, aside);
    }
    return 'atomically';
  } catch (error) {
    if (!closed) await fs.close(temp, handle).catch(() => undefined);
    await removeQuietly(fs, temp);
    throw error;
  }
}

/** Creates a new file (edit_file with an empty old_string); fails if it exists meanwhile. */
export async function createFile(fs: RemoteFs, path: string, data: Buffer): Promise<void> {
  const handle = await fs.open(path, 'wx', 0o644);
  try {
    await fs.writeAll(path, handle, data);
    await fs.fsync(handle);
  } finally {
    await fs.close(path, handle);
  }
}

/** Runs one edit at a time per key (a file on a host), so two edits of one file both land. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
