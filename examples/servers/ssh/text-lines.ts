/**
 * Files as lines, byte-exact: where each line starts and ends, which line break it has (LF,
 * CRLF or none on the last), whether the bytes are binary or not UTF-8, and how a line is
 * shown (`cat -n` numbering, long lines cut). The edit tools work on these byte offsets, so
 * bytes they do not change — invalid UTF-8, a lone CR, the lack of a final newline — are
 * written back exactly as they were. Pure.
 */
import { createHash } from 'node:crypto';

/** One line: `start`..`end` is its text, `end`..`next` its line break (empty on a last line without one). */
export interface Line {
  readonly start: number;
  readonly end: number;
  readonly next: number;
}

/** How many leading bytes are looked at for a NUL byte (git's heuristic uses the first 8000). */
export const BINARY_SNIFF_BYTES = 8000;

/** Whether the data looks binary: a NUL byte among its first bytes, as git and grep decide. */
export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Whether the bytes are valid UTF-8. */
export function isUtf8(data: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

/** The lines of `data`. An empty file has none; a final line break does not start another line. */
export function splitLines(data: Buffer): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < data.length) {
    const lf = data.indexOf(0x0a, start);
    if (lf < 0) {
      lines.push({ start, end: data.length, next: data.length });
      break;
    }
    const end = lf > start && data[lf - 1] === 0x0d ? lf - 1 : lf;
    lines.push({ start, end, next: lf + 1 });
    start = lf + 1;
  }
  return lines;
}

/** The line breaks a file uses. */
export type EolStyle = 'lf' | 'crlf' | 'mixed' | 'none';

function breakCounts(lines: readonly Line[]): { lf: number; crlf: number } {
  let lf = 0;
  let crlf = 0;
  for (const line of lines) {
    const width = line.next - line.end;
    if (width === 2) crlf++;
    else if (width === 1) lf++;
  }
  return { lf, crlf };
}

export function eolStyle(lines: readonly Line[]): EolStyle {
  const { lf, crlf } = breakCounts(lines);
  if (lf === 0 && crlf === 0) return 'none';
  if (lf === 0) return 'crlf';
  if (crlf === 0) return 'lf';
  return 'mixed';
}

/** The break new lines get: CRLF in a file whose lines mostly end so, else LF. */
export function dominantBreak(lines: readonly Line[]): string {
  const { lf, crlf } = breakCounts(lines);
  return crlf > lf ? '\r\n' : '\n';
}

/** Which line (0-based) holds byte `offset`; an offset at the very end belongs to the last line. */
export function lineAt(lines: readonly Line[], offset: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lines[mid]!.start <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** A line's text, decoded (invalid UTF-8 shown as U+FFFD), without its line break. */
export function lineText(data: Buffer, line: Line): string {
  return data.toString('utf8', line.start, line.end);
}

/** The longest line shown in full; longer ones are cut with a note of how much was left out. */
export const MAX_LINE_CHARS = 2000;

/** `text` cut to `max` characters with a note, or as is. */
export function cutLine(text: string, max = MAX_LINE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** One numbered line as `cat -n` prints it: the number right-aligned in six columns, a tab, the text. */
export function numbered(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** A short content hash: the `version` the edit tools compare to refuse stale edits. */
export function versionOf(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

/** A byte count as people read it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}
