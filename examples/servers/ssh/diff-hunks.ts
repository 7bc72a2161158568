/**
 * What an edit changed, shown as unified-diff hunks whose lines carry their numbers the way
 * read_file numbers them (`-` lines the old file's, ` ` and `+` lines the new file's), so the
 * model can edit on from the new numbers without reading the file again. The edits say which
 * byte ranges they replaced; those are widened to whole lines here, so no diff algorithm has
 * to rediscover them. Pure.
 */
import { cutLine, type Line, lineAt, lineText, numbered, splitLines } from './text-lines.js';

/** One replaced byte range: `oldStart..oldEnd` of the old file became `newStart..newEnd` of the new. */
export interface ByteChange {
  readonly oldStart: number;
  readonly oldEnd: number;
  readonly newStart: number;
  readonly newEnd: number;
}

/** One replaced run of whole lines, 0-based, end exclusive. */
export interface LineChange {
  readonly oldFrom: number;
  readonly oldTo: number;
  readonly newFrom: number;
  readonly newTo: number;
}

const atLineStart = (data: Buffer, offset: number) => offset === 0 || data[offset - 1] === 0x0a;

/** The line index that starts at `offset` (a line start or the end of the data). */
function lineStartingAt(lines: readonly Line[], offset: number): number {
  if (lines.length === 0) return 0;
  const last = lines[lines.length - 1]!;
  return offset >= last.next ? lines.length : lineAt(lines, offset);
}

/**
 * Widens byte changes (sorted, not overlapping) to whole lines and merges those that then
 * share a line. The text before and after a change is the same in both files, so a change is
 * widened by the same bytes on both sides.
 */
export function lineChanges(oldData: Buffer, newData: Buffer, changes: readonly ByteChange[]): LineChange[] {
  const oldLines = splitLines(oldData);
  const newLines = splitLines(newData);
  const widened: ByteChange[] = [];
  for (const c of changes) {
    let back = 0;
    while (c.oldStart - back > 0 && oldData[c.oldStart - back - 1] !== 0x0a) back++;
    let ahead = 0;
    if (!(atLineStart(oldData, c.oldEnd) && atLineStart(newData, c.newEnd))) {
      while (c.oldEnd + ahead < oldData.length && oldData[c.oldEnd + ahead] !== 0x0a) ahead++;
      if (c.oldEnd + ahead < oldData.length) ahead++;
    }
    const next = {
      oldStart: c.oldStart - back,
      oldEnd: c.oldEnd + ahead,
      newStart: c.newStart - back,
      newEnd: c.newEnd + ahead,
    };
    const previous = widened[widened.length - 1];
    if (previous !== undefined && next.oldStart <= previous.oldEnd)
      widened[widened.length - 1] = {
        ...previous,
        oldEnd: Math.max(previous.oldEnd, next.oldEnd),
        newEnd: Math.max(previous.newEnd, next.newEnd),
      };
    else widened.push(next);
  }
  return widened.map((w) => ({
    oldFrom: lineStartingAt(oldLines, w.oldStart),
    oldTo: lineStartingAt(oldLines, w.oldEnd),
    newFrom: lineStartingAt(newLines, w.newStart),
    newTo: lineStartingAt(newLines, w.newEnd),
  }));
}

/** How the hunks are laid out. */
export interface HunkOptions {
  /** Unchanged lines shown around each change (3, as `diff -u`). */
  readonly context?: number;
  /** At most this many lines are shown; the rest is counted. */
  readonly maxLines?: number;
  /** Each line is cut at this many characters. */
  readonly maxLineChars?: number;
}

/** The changes as `@@ -a,n +b,m @@` hunks, each line marked and numbered. */
export function formatHunks(
  oldData: Buffer,
  newData: Buffer,
  changes: readonly LineChange[],
  options: HunkOptions = {},
): string {
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 400;
  const maxChars = options.maxLineChars ?? 500;
  const oldLines = splitLines(oldData);
  const newLines = splitLines(newData);
  const show = (marker: string, data: Buffer, line: Line, index: number) =>
    `${marker}${numbered(index + 1, cutLine(lineText(data, line), maxChars))}`;

  // Changes whose context would touch are one hunk.
  const groups: LineChange[][] = [];
  for (const change of changes) {
    const group = groups[groups.length - 1];
    const previous = group?.[group.length - 1];
    if (group !== undefined && previous !== undefined && change.oldFrom - previous.oldTo <= 2 * context)
      group.push(change);
    else groups.push([change]);
  }
  const out: string[] = [];
  let dropped = 0;
  const emit = (line: string) => {
    if (out.length < maxLines) out.push(line);
    else dropped++;
  };
  for (const group of groups) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const shift = first.newFrom - first.oldFrom;
    const from = Math.max(0, first.oldFrom - context);
    const to = Math.min(oldLines.length, last.oldTo + context);
    const newTo = to + (last.newTo - last.oldTo);
    const oldCount = to - from;
    const newCount = newTo - (from + shift);
    emit(
      `@@ -${oldCount === 0 ? from : from + 1},${oldCount} +${newCount === 0 ? from + shift : from + shift + 1},${newCount} @@`,
    );
    let at = from;
    for (const change of group) {
      const offset = change.newFrom - change.oldFrom;
      for (; at < change.oldFrom; at++) emit(show(' ', oldData, oldLines[at]!, at + offset));
      for (let i = change.oldFrom; i < change.oldTo; i++) emit(show('-', oldData, oldLines[i]!, i));
      for (let i = change.newFrom; i < change.newTo; i++) emit(show('+', newData, newLines[i]!, i));
      at = change.oldTo;
    }
    const offset = last.newTo - last.oldTo;
    for (; at < to; at++) emit(show(' ', oldData, oldLines[at]!, at + offset));
  }
  if (dropped > 0) out.push(`[${dropped} more diff lines not shown; read_file shows the result]`);
  return out.join('\n');
}
