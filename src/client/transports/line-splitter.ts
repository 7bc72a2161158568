/**
 * Splits a byte stream into newline-terminated lines without quadratic copying: chunks are
 * kept as they arrive and joined once per line, so a 20 MB message costs one copy, not
 * thousands. Lines longer than `maxLineBytes` are dropped and reported, never buffered
 * without bound.
 */
export interface LineSplitterOptions {
  readonly maxLineBytes: number;
  readonly onLine: (line: Buffer) => void;
  readonly onOversize: (bytes: number) => void;
}

const NEWLINE = 0x0a;

export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  private discarding = false;

  constructor(private readonly options: LineSplitterOptions) {}

  /** Feeds one chunk; calls `onLine` for every complete line (without the `\n`, `\r` trimmed). */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      this.emit(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) this.buffer(chunk.subarray(start));
  }

  /** Bytes held for an unfinished line. */
  get bufferedBytes(): number {
    return this.pending;
  }

  private buffer(part: Buffer): void {
    if (this.discarding) return;
    this.pending += part.length;
    if (this.pending > this.options.maxLineBytes) {
      this.options.onOversize(this.pending);
      this.chunks = [];
      this.pending = 0;
      this.discarding = true;
      return;
    }
    this.chunks.push(part);
  }

  private emit(tail: Buffer): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = tail;
    if (this.chunks.length > 0) {
      const total = this.pending + tail.length;
      if (total > this.options.maxLineBytes) {
        this.options.onOversize(total);
        this.chunks = [];
        this.pending = 0;
        return;
      }
      this.chunks.push(tail);
      line = Buffer.concat(this.chunks, total);
      this.chunks = [];
      this.pending = 0;
    }
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > 0) this.options.onLine(line);
  }
}
