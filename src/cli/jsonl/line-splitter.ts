/**
 * Splits a text stream into lines for the JSON-lines protocol, with a cap on a line's length:
 * a front-end that never sends a newline must not make the host buffer without bound. A line
 * past the cap is dropped as it arrives (only its length is counted) and reported once its
 * newline comes. `\r\n` endings are accepted; blank lines are skipped. Pure.
 */

/** One complete input line, or the report of one that was too long to keep. */
export type SplitLine =
  | { readonly kind: 'line'; readonly text: string }
  | { readonly kind: 'too_long'; readonly length: number };

/** Default cap: 4 MiB of characters, room for a call with a large base64 argument. */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

export class LineSplitter {
  private buffer = '';
  /** Characters of the current line dropped because it passed the cap (0: not dropping). */
  private dropped = 0;

  constructor(private readonly maxChars: number = MAX_LINE_CHARS) {}

  /** Feeds a chunk; returns the lines it completed, in order. */
  push(chunk: string): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf('\n', start);
      const piece = chunk.slice(start, newline === -1 ? undefined : newline);
      this.append(piece);
      if (newline === -1) return lines;
      const done = this.take();
      if (done) lines.push(done);
      start = newline + 1;
    }
  }

  /** The last line, when the stream ends without a final newline. */
  end(): SplitLine[] {
    const done = this.take();
    return done ? [done] : [];
  }

  private append(piece: string): void {
    if (this.dropped > 0) {
      this.dropped += piece.length;
      return;
    }
    if (this.buffer.length + piece.length > this.maxChars) {
      this.dropped = this.buffer.length + piece.length;
      this.buffer = '';
      return;
    }
    this.buffer += piece;
  }

  private take(): SplitLine | undefined {
    if (this.dropped > 0) {
      const length = this.dropped;
      this.dropped = 0;
      return { kind: 'too_long', length };
    }
    const text = this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer;
    this.buffer = '';
    return text.trim() === '' ? undefined : { kind: 'line', text };
  }
}
