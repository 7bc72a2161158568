/**
 * The two edits, on a file's bytes: `replaceExact` (edit_file: an exact string, once or
 * everywhere) and `replaceLines` (replace_lines: lines start..end, 1-based, inclusive). Both
 * touch only the bytes they replace, so the rest of a file — other line breaks, invalid UTF-8,
 * a missing final newline — comes back unchanged, and both say which byte ranges changed, for
 * the diff shown afterwards. Pure.
 */
import type { ByteChange } from './diff-hunks.js';
import { dominantBreak, lineAt, splitLines } from './text-lines.js';

/** What an edit made, or why it could not. */
export type EditOutcome =
  | { readonly kind: 'edited'; readonly data: Buffer; readonly changes: readonly ByteChange[] }
  | { readonly kind: 'no-match'; readonly hint: string }
  | { readonly kind: 'ambiguous'; readonly lines: readonly number[] }
  | { readonly kind: 'invalid'; readonly message: string };

/** Where `needle` occurs in `data`, not overlapping, left to right. */
export function findAll(data: Buffer, needle: Buffer): number[] {
  const hits: number[] = [];
  if (needle.length === 0) return hits;
  for (let at = data.indexOf(needle); at >= 0; at = data.indexOf(needle, at + needle.length)) hits.push(at);
  return hits;
}

function splice(data: Buffer, hits: readonly number[], width: number, replacement: Buffer) {
  const parts: Buffer[] = [];
  const changes: ByteChange[] = [];
  let from = 0;
  let shift = 0;
  for (const at of hits) {
    parts.push(data.subarray(from, at), replacement);
    changes.push({
      oldStart: at,
      oldEnd: at + width,
      newStart: at + shift,
      newEnd: at + shift + replacement.length,
    });
    shift += replacement.length - width;
    from = at + width;
  }
  parts.push(data.subarray(from));
  return { data: Buffer.concat(parts), changes };
}

const toCrlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/**
 * Replaces `oldString` by `newString`: it must occur exactly once, or `replaceAll`. Matched
 * byte for byte as UTF-8; in a file whose lines end in CRLF, a `\n` in either string stands
 * for the file's CRLF (what read_file shows has no CR), so the file keeps its line breaks.
 */
export function replaceExact(
  data: Buffer,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): EditOutcome {
  if (oldString === '')
    return {
      kind: 'invalid',
      message:
        'old_string is empty: give the exact text to replace (to insert lines, use replace_lines; an empty old_string only creates a file that does not exist yet).',
    };
  if (oldString === newString)
    return { kind: 'invalid', message: 'old_string and new_string are the same: nothing would change.' };
  const lines = splitLines(data);
  const crlfFile = dominantBreak(lines) === '\r\n';
  const candidates: [string, string][] = [[oldString, crlfFile ? toCrlf(newString) : newString]];
  if (oldString.includes('\n')) candidates.push([toCrlf(oldString), toCrlf(newString)]);
  for (const [from, to] of candidates) {
    const needle = Buffer.from(from, 'utf8');
    const hits = findAll(data, needle);
    if (hits.length === 0) continue;
    if (hits.length > 1 && !replaceAll)
      return { kind: 'ambiguous', lines: hits.map((at) => lineAt(lines, at) + 1) };
    return { kind: 'edited', ...splice(data, hits, needle.length, Buffer.from(to, 'utf8')) };
  }
  return {
    kind: 'no-match',
    hint: 'old_string must match the file exactly, whitespace and indentation included (without the line numbers read_file adds); read the lines again and copy them.',
  };
}

/** `newText` as lines: one trailing line break is not a further empty line; "" is no lines. */
export function textLines(newText: string): string[] {
  if (newText === '') return [];
  const lines = newText.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Replaces lines `start`..`end` (1-based, inclusive) by the lines of `newText`. `end` may be
 * `start - 1` to insert before line `start` (`start` one past the last line appends). New
 * lines get the file's usual line break; the last one gets one when the replaced line had
 * one, or when it is inserted before a line.
 */
export function replaceLines(data: Buffer, start: number, end: number, newText: string): EditOutcome {
  const lines = splitLines(data);
  const count = lines.length;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || start > count + 1)
    return {
      kind: 'invalid',
      message: `start_line ${start} is outside the file, which has ${count} line(s): use 1..${count + 1} (${count + 1} appends).`,
    };
  if (end < start - 1 || end > count)
    return {
      kind: 'invalid',
      message: `end_line ${end} must be from ${start - 1} (insert before start_line) to ${count} (the last line).`,
    };
  const eol = count === 0 ? '\n' : dominantBreak(lines);
  const inserted = textLines(newText);
  const regionStart = start <= count ? lines[start - 1]!.start : data.length;
  const regionEnd = end >= start ? lines[end - 1]!.next : regionStart;
  let text = inserted.join(eol);
  if (inserted.length > 0) {
    const last = lines[count - 1];
    if (end >= start) {
      const replacedLast = lines[end - 1]!;
      if (replacedLast.next > replacedLast.end) text += eol;
    } else if (start <= count || last === undefined || last.next > last.end) text += eol;
    // Appending to a last line without a line break: it gets one, the new last line none.
    else text = eol + text;
  }
  if (inserted.length === 0 && end < start)
    return { kind: 'invalid', message: 'new_text is empty and no line is replaced: nothing would change.' };
  const replacement = Buffer.from(text, 'utf8');
  if (replacement.equals(data.subarray(regionStart, regionEnd)))
    return { kind: 'invalid', message: 'new_text is what those lines already hold: nothing would change.' };
  const result = Buffer.concat([data.subarray(0, regionStart), replacement, data.subarray(regionEnd)]);
  return {
    kind: 'edited',
    data: result,
    changes: [
      {
        oldStart: regionStart,
        oldEnd: regionEnd,
        newStart: regionStart,
        newEnd: regionStart + replacement.length,
      },
    ],
  };
}
