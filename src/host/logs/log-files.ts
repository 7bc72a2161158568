import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatLogLine, type LogLineInput, logFileName } from './log-line.js';

/**
 * Per-server log files `logs/<name>.log`, rotated past a size limit to `<name>.log.1` (one
 * backup). Writes are synchronous appends: a log line must survive the process dying right
 * after it, and servers log little enough that this costs nothing measurable.
 */
export interface LogFilesOptions {
  readonly dir: string;
  /** Rotate when a file passes this many bytes. Default 5 MiB. */
  readonly maxBytes?: number;
}

export class LogFiles {
  private readonly maxBytes: number;
  private readonly sizes = new Map<string, number>();
  private readonly secrets = new Map<string, readonly string[]>();

  constructor(private readonly options: LogFilesOptions) {
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  }

  /** The file a server logs to. */
  pathOf(server: string): string {
    return join(this.options.dir, logFileName(server));
  }

  /** Values that must never appear in this server's log (header and env values, tokens). */
  setSecrets(server: string, secrets: readonly string[]): void {
    this.secrets.set(server, secrets);
  }

  write(server: string, entry: LogLineInput): void {
    const path = this.pathOf(server);
    const line = formatLogLine(entry, this.secrets.get(server));
    let size = this.sizes.get(path);
    if (size === undefined) {
      try {
        size = statSync(path).size;
      } catch {
        size = 0;
      }
    }
    if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) {
      renameSync(path, `${path}.1`);
      size = 0;
    }
    appendFileSync(path, line, { mode: 0o600 });
    this.sizes.set(path, size + Buffer.byteLength(line));
  }
}
