import { appendFileSync, mkdirSync } from 'node:fs';
import { appendFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatLogLine, type LogLineInput, logFileName } from './log-line.js';

/**
 * Per-server log files `logs/<name>.log`, rotated past a size limit to `<name>.log.1` (one
 * backup). A server can log tens of thousands of lines a second, so lines are written in
 * batches, asynchronously: the lines of one turn of the event loop (and all that arrive while
 * a write is under way) go to the file in one append. What waits is bounded per file; past
 * the bound lines are dropped and counted, and the next write says how many with a marker
 * line, so a disk that cannot keep up costs lines, never memory or the calls' time. Lines
 * still waiting when the process exits are written then, synchronously.
 *
 * Writing never throws: an I/O error (a full disk, a removed directory, a name the file
 * system refuses) drops that batch, is counted into the next marker, and is reported once per
 * file and error code to `onError`.
 */
export interface LogFilesOptions {
  readonly dir: string;
  /** Rotate when a file passes this many bytes. Default 5 MiB. */
  readonly maxBytes?: number;
  /** Bytes of lines that may wait for one file before lines are dropped. Default 1 MiB. */
  readonly maxPendingBytes?: number;
  /** Told of a write that failed, once per file and error code. */
  readonly onError?: (file: string, error: NodeJS.ErrnoException) => void;
}

interface FileState {
  readonly path: string;
  /** Bytes in the file, once known (read before the first write). */
  size?: number;
  pending: string[];
  pendingBytes: number;
  /** Lines lost since the last write: dropped at the bound, or in a failed write. */
  dropped: number;
  writing: boolean;
  scheduled: boolean;
  readonly reported: Set<string>;
}

/** Every LogFiles with lines waiting, flushed synchronously when the process exits. */
const open = new Set<LogFiles>();
let exitHookInstalled = false;

export class LogFiles {
  private readonly maxBytes: number;
  private readonly maxPendingBytes: number;
  private readonly files = new Map<string, FileState>();
  private readonly secrets = new Map<string, readonly string[]>();
  private idle: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: LogFilesOptions) {
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxPendingBytes = options.maxPendingBytes ?? 1024 * 1024;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    open.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      // 'exit' handlers run synchronously: what still waits is appended with the sync API.
      process.on('exit', () => {
        for (const logs of open) logs.flushSync();
      });
    }
  }

  /** The file a server logs to. */
  pathOf(server: string): string {
    return join(this.options.dir, logFileName(server));
  }

  /** Values that must never appear in this server's log (header and env values, tokens). */
  setSecrets(server: string, secrets: readonly string[]): void {
    this.secrets.set(server, secrets);
  }

  /** Queues a line for the server's file; written soon, in order. Never throws. */
  write(server: string, entry: LogLineInput): void {
    const line = formatLogLine(entry, this.secrets.get(server));
    const file = this.fileOf(server);
    if (file.pendingBytes + line.length > this.maxPendingBytes) {
      file.dropped++;
      return;
    }
    file.pending.push(line);
    file.pendingBytes += line.length;
    if (this.closed) {
      this.flushSync();
      return;
    }
    if (!file.writing && !file.scheduled) {
      file.scheduled = true;
      setImmediate(() => void this.drain(file));
    }
  }

  /** Resolves once every line queued so far is written (or dropped). */
  flush(): Promise<void> {
    if (![...this.files.values()].some(busy)) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Writes what waits and stops batching: later lines are appended at once, synchronously. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    open.delete(this);
  }

  private fileOf(server: string): FileState {
    const path = this.pathOf(server);
    let file = this.files.get(path);
    if (!file) {
      file = {
        path,
        pending: [],
        pendingBytes: 0,
        dropped: 0,
        writing: false,
        scheduled: false,
        reported: new Set(),
      };
      this.files.set(path, file);
    }
    return file;
  }

  private async drain(file: FileState): Promise<void> {
    file.scheduled = false;
    file.writing = true;
    try {
      // Lost lines alone are not written: the next line brings their marker along.
      while (file.pending.length > 0) {
        const { lines, count } = this.take(file);
        try {
          await this.append(file, lines);
        } catch (error) {
          this.failed(file, count, error as NodeJS.ErrnoException);
        }
      }
    } finally {
      file.writing = false;
      this.settle();
    }
  }

  /**
   * Appends `lines` in as few writes as the size limit allows: as many as fit, then a
   * rotation, then the rest — a file never passes the limit but by a line longer than it.
   */
  private async append(file: FileState, lines: readonly string[]): Promise<void> {
    let size = file.size ?? (await sizeOf(file.path));
    let from = 0;
    while (from < lines.length) {
      let to = from;
      let bytes = 0;
      for (; to < lines.length; to++) {
        const next = Buffer.byteLength(lines[to]!);
        if (size + bytes + next > this.maxBytes && (size > 0 || bytes > 0)) break;
        bytes += next;
      }
      if (to === from) {
        await rename(file.path, `${file.path}.1`);
        size = 0;
        file.size = 0;
        continue;
      }
      await appendFile(file.path, lines.slice(from, to).join(''), { mode: 0o600 });
      size += bytes;
      file.size = size;
      from = to;
    }
  }

  /**
   * The waiting lines, after a marker for the lines lost since the last write; `count` is how
   * many lines they stand for (the lost ones too), should the batch be lost in turn.
   */
  private take(file: FileState): { lines: string[]; count: number } {
    const { pending, dropped } = file;
    file.pending = [];
    file.pendingBytes = 0;
    file.dropped = 0;
    const lines = dropped > 0 ? [droppedMarker(dropped), ...pending] : pending;
    return { lines, count: pending.length + dropped };
  }

  private failed(file: FileState, lines: number, error: NodeJS.ErrnoException): void {
    // The size is read again before the next write: a rename or an append may have half-happened.
    file.size = undefined;
    file.dropped += lines;
    const code = error.code ?? 'EIO';
    if (file.reported.has(code)) return;
    file.reported.add(code);
    this.options.onError?.(file.path, error);
  }

  private settle(): void {
    if ([...this.files.values()].some(busy)) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }

  /**
   * Appends what waits, synchronously (at process exit, or after close). A batch being written
   * asynchronously at that moment is not waited for: an exit cannot wait.
   */
  private flushSync(): void {
    for (const file of this.files.values()) {
      if (file.pending.length === 0) continue;
      const { lines, count } = this.take(file);
      try {
        const text = lines.join('');
        appendFileSync(file.path, text, { mode: 0o600 });
        if (file.size !== undefined) file.size += Buffer.byteLength(text);
      } catch (error) {
        this.failed(file, count, error as NodeJS.ErrnoException);
      }
    }
  }
}

function busy(file: FileState): boolean {
  return file.writing || file.scheduled;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** The line that stands for lost lines, in the file's own line format. */
function droppedMarker(count: number): string {
  return formatLogLine({
    at: new Date(),
    source: 'lifecycle',
    level: 'warning',
    text: `${count} log line${count === 1 ? '' : 's'} dropped: the log could not be written fast enough (or failed)`,
  });
}
