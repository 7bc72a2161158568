/**
 * The file tools' view of a remote filesystem: one SFTP session as the login user (never
 * sudo), its calls as promises, SFTP status codes turned into `SshError` codes (not found,
 * permission denied), and one deadline for the whole tool call — at which the SFTP session is
 * ended, so every pending request fails at once instead of hanging the call.
 */
import type { SFTPWrapper, Stats } from 'ssh2';
import type { SshConnection } from './connection.js';
import { SshError } from './errors.js';
import type { SshSettings } from './settings.js';

// SFTP status codes (draft-ietf-secsh-filexfer-02 §7), as ssh2 sets them on `code`.
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

/** One entry of a remote folder. */
export interface RemoteEntry {
  readonly name: string;
  readonly stats: Stats;
}

/** Maps an SFTP failure on `path` to an `SshError` whose code says which kind it was. */
export function sftpError(path: string, what: string, cause: unknown): SshError {
  if (cause instanceof SshError) return cause;
  const code = (cause as { code?: unknown }).code;
  if (code === NO_SUCH_FILE)
    return new SshError('NOT_FOUND', `${path} does not exist on the remote host; check the path.`, { cause });
  if (code === PERMISSION_DENIED)
    return new SshError(
      'PERMISSION_DENIED',
      `The login user may not ${what} ${path}. The file tools never use sudo: for privileged files use exec with sudo=true (e.g. cat, tee, install).`,
      { cause },
    );
  return new SshError(
    'SFTP_FAILED',
    `Cannot ${what} ${path} on the remote host (${(cause as Error).message}); check the path and its permissions.`,
    { cause },
  );
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown }).code === NO_SUCH_FILE;
}

/** SFTP calls as promises, each failure mapped by `sftpError`. */
export class RemoteFs {
  constructor(
    readonly sftp: SFTPWrapper,
    private readonly expired: () => boolean,
  ) {}

  /** Throws `TIMEOUT` once the call's deadline has passed (checked in long loops). */
  checkDeadline(): void {
    if (this.expired()) throw new SshError('TIMEOUT', 'The file operation ran past its deadline.');
  }

  private call<T>(path: string, what: string, run: (done: (error: unknown, value?: T) => void) => void) {
    return new Promise<T>((resolve, reject) =>
      run((error, value) => (error ? reject(sftpError(path, what, error)) : resolve(value as T))),
    );
  }

  stat(path: string): Promise<Stats> {
    return this.call(path, 'read', (done) => this.sftp.stat(path, done));
  }

  lstat(path: string): Promise<Stats> {
    return this.call(path, 'read', (done) => this.sftp.lstat(path, done));
  }

  /** `lstat`, or undefined when the path does not exist. */
  async lstatIfAny(path: string): Promise<Stats | undefined> {
    return new Promise((resolve, reject) =>
      this.sftp.lstat(path, (error, stats) => {
        if (!error) resolve(stats);
        else if (isMissing(error)) resolve(undefined);
        else reject(sftpError(path, 'read', error));
      }),
    );
  }

  realpath(path: string): Promise<string> {
    return this.call(path, 'resolve', (done) => this.sftp.realpath(path, done));
  }

  readlink(path: string): Promise<string> {
    return this.call(path, 'read the link', (done) => this.sftp.readlink(path, done));
  }

  async readdir(path: string): Promise<RemoteEntry[]> {
    const list = await this.call<{ filename: string; attrs: Stats }[]>(path, 'list', (done) =>
      this.sftp.readdir(path, done),
    );
    return list
      .filter((e) => e.filename !== '.' && e.filename !== '..')
      .map((e) => ({ name: e.filename, stats: e.attrs }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Reads a file from its start in chunks, handing each to `onChunk` until it returns false or
   * the file ends; at most `maxBytes` are read. Returns how many bytes were read.
   */
  async readChunks(path: string, maxBytes: number, onChunk: (chunk: Buffer) => boolean): Promise<number> {
    const stream = this.sftp.createReadStream(path, { highWaterMark: 64 * 1024 });
    // Once the loop has stopped, closing the handle can still fail (the session ended first,
    // "No response from server"): that late error is of no interest, and with no listener
    // it would be thrown and end the process. Errors while reading still reach the loop.
    stream.on('error', () => undefined);
    let read = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const part = read + chunk.length > maxBytes ? chunk.subarray(0, maxBytes - read) : chunk;
        read += part.length;
        if (!onChunk(part) || read >= maxBytes) break;
        this.checkDeadline();
      }
    } catch (error) {
      throw sftpError(path, 'read', error);
    } finally {
      stream.destroy();
    }
    return read;
  }

  /** A whole file, refused above `maxBytes` (checked before and while reading). */
  async readWhole(path: string, maxBytes: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const read = await this.readChunks(path, maxBytes + 1, (chunk) => {
      chunks.push(chunk);
      return true;
    });
    if (read > maxBytes) throw tooLarge(path, maxBytes);
    return Buffer.concat(chunks);
  }

  /** Opens a file: `flags` as fopen's ("wx" creates a new one, failing if it exists). */
  open(path: string, flags: 'r' | 'wx' | 'w', mode?: number): Promise<Buffer> {
    return this.call(path, flags === 'r' ? 'read' : 'write', (done) =>
      mode === undefined ? this.sftp.open(path, flags, done) : this.sftp.open(path, flags, { mode }, done),
    );
  }

  /** Writes all of `data` at the handle's start, in pieces SFTP servers accept. */
  async writeAll(path: string, handle: Buffer, data: Buffer): Promise<void> {
    const piece = 32 * 1024;
    for (let at = 0; at < data.length; at += piece) {
      const length = Math.min(piece, data.length - at);
      await this.call(path, 'write', (done) => this.sftp.write(handle, data, at, length, at, done));
    }
  }

  fstat(path: string, handle: Buffer): Promise<Stats> {
    return this.call(path, 'read', (done) => this.sftp.fstat(handle, done));
  }

  fchmod(path: string, handle: Buffer, mode: number): Promise<void> {
    return this.call(path, 'change the mode of', (done) => this.sftp.fchmod(handle, mode, done));
  }

  fchown(path: string, handle: Buffer, uid: number, gid: number): Promise<void> {
    return this.call(path, 'change the owner of', (done) => this.sftp.fchown(handle, uid, gid, done));
  }

  /** Flushes to disk where the server offers `fsync@openssh.com`; a no-op elsewhere. */
  async fsync(handle: Buffer): Promise<void> {
    await new Promise<void>((resolve) => {
      try {
        this.sftp.ext_openssh_fsync(handle, () => resolve());
      } catch {
        // The extension is not offered: the rename still makes the switch atomic.
        resolve();
      }
    });
    this.checkDeadline();
  }

  close(path: string, handle: Buffer): Promise<void> {
    return this.call(path, 'close', (done) => this.sftp.close(handle, done));
  }

  unlink(path: string): Promise<void> {
    return this.call(path, 'remove', (done) => this.sftp.unlink(path, done));
  }

  /** Plain SFTP rename: fails when `to` exists (SFTP v3 leaves that to the server). */
  rename(from: string, to: string): Promise<void> {
    return this.call(to, 'rename onto', (done) => this.sftp.rename(from, to, done));
  }

  /**
   * POSIX rename (`posix-rename@openssh.com`), replacing `to` in one step; false when the
   * server does not offer the extension (ssh2 then throws at once, before sending anything).
   */
  posixRename(from: string, to: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      try {
        this.sftp.ext_openssh_rename(from, to, (error) =>
          error ? reject(sftpError(to, 'replace', error)) : resolve(true),
        );
      } catch {
        resolve(false);
      }
    });
  }
}

/** The error for a file above the file tools' size limit. */
export function tooLarge(path: string, maxBytes: number): SshError {
  return new SshError(
    'FILE_TOO_LARGE',
    `${path} is larger than ${maxBytes} bytes (SSH_MCP_FILE_MAX). Read parts of it with exec (sed -n '100,200p', tail, grep), or download it.`,
  );
}

/**
 * Runs `work` on a new SFTP session of the connection, ended afterwards, within the file
 * tools' deadline (`SSH_MCP_FS_TIMEOUT`). The connection counts as busy meanwhile.
 */
export function withRemoteFs<T>(
  connection: SshConnection,
  settings: SshSettings,
  work: (fs: RemoteFs) => Promise<T>,
): Promise<T> {
  return connection.using(async () => {
    const sftp = await connection.sftp();
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        sftp.end();
        reject(
          new SshError(
            'TIMEOUT',
            `The file operation did not finish in ${settings.fsTimeoutMs / 1000} s (SSH_MCP_FS_TIMEOUT); narrow it (a smaller path, a glob, fewer lines).`,
          ),
        );
      }, settings.fsTimeoutMs);
    });
    const running = work(new RemoteFs(sftp, () => expired));
    // Once the deadline has won, the work's own failure (its session ended) is of no interest.
    running.catch(() => undefined);
    try {
      return await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
      sftp.end();
    }
  });
}
