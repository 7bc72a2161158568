/**
 * `read_file`: a remote text file's lines numbered as `cat -n` prints them, from `offset` for
 * `limit` lines, with a closing note that says which lines these are, of how many, whether
 * the output was cut and how to read on. A file up to `SSH_MCP_FILE_MAX` is read whole (so
 * the total and its `version` are known); a larger one only as far as the lines asked for.
 */
import type { Stats } from 'ssh2';
import { SshError } from './errors.js';
import { type RemoteFs, tooLarge } from './remote-fs.js';
import type { SshSettings } from './settings.js';
import {
  cutLine,
  eolStyle,
  formatBytes,
  isUtf8,
  lineText,
  looksBinary,
  numbered,
  splitLines,
  versionOf,
} from './text-lines.js';

/** What read_file is asked for. */
export interface ReadRequest {
  readonly path: string;
  /** The first line shown, 1-based. */
  readonly offset: number;
  /** At most this many lines. */
  readonly limit: number;
}

/** read_file's answer: the numbered lines and a note, and the same facts as data. */
export interface FileView {
  readonly text: string;
  readonly structured: Record<string, unknown>;
}

const NOTES_ROOM = 512;

/** A path as SFTP takes it: `~/x` is relative to the login user's home, where SFTP starts. */
export function remotePath(path: string): string {
  if (path === '~') return '.';
  return path.startsWith('~/') ? path.slice(2) || '.' : path;
}

/** Checks that `path` is a regular file (symlinks followed) and returns its attributes. */
export async function regularFile(fs: RemoteFs, path: string): Promise<Stats> {
  const stats = await fs.stat(path);
  if (stats.isDirectory())
    throw new SshError('NOT_A_FILE', `${path} is a directory; use list_files to see what it holds.`);
  if (!stats.isFile())
    throw new SshError(
      'NOT_A_FILE',
      `${path} is not a regular file (a device, socket or pipe); it is not read.`,
    );
  return stats;
}

/** The error for a binary file. */
export function binaryFile(path: string, size: number): SshError {
  return new SshError(
    'BINARY_FILE',
    `${path} is binary (${size} bytes; a NUL byte in its first 8000). The text tools do not show or edit it: use download, or exec with file, xxd or od.`,
  );
}

/** Reads the lines asked for; see the module comment. */
export async function readRemoteFile(
  fs: RemoteFs,
  settings: SshSettings,
  request: ReadRequest,
): Promise<FileView> {
  const path = remotePath(request.path);
  const stats = await regularFile(fs, path);
  const link = (await fs.lstat(path)).isSymbolicLink() ? await fs.realpath(path) : undefined;
  const whole = stats.size <= settings.fileMaxBytes;
  const chunks: Buffer[] = [];
  let breaks = 0;
  const wanted = request.offset + request.limit;
  const read = await fs.readChunks(path, settings.fileMaxBytes, (chunk) => {
    chunks.push(chunk);
    if (whole) return true;
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) breaks++;
    return breaks < wanted;
  });
  let data = Buffer.concat(chunks);
  const complete = read >= stats.size;
  if (looksBinary(data)) throw binaryFile(request.path, stats.size);
  if (!complete) data = data.subarray(0, data.lastIndexOf(0x0a) + 1);
  const lines = splitLines(data);
  if (!complete && lines.length < request.offset) throw tooLarge(request.path, settings.fileMaxBytes);

  const out: string[] = [];
  let bytes = 0;
  let cutByBytes = false;
  const first = request.offset - 1;
  const last = Math.min(lines.length, first + request.limit);
  let shownTo = first;
  for (let i = first; i < last; i++) {
    const line = numbered(i + 1, cutLine(lineText(data, lines[i]!)));
    bytes += Buffer.byteLength(line) + 1;
    // Room is kept for the closing notes, so the tool's own cap never cuts them off.
    if (bytes > settings.outputMaxBytes - NOTES_ROOM && out.length > 0) {
      cutByBytes = true;
      break;
    }
    out.push(line);
    shownTo = i + 1;
  }

  const total = complete ? lines.length : undefined;
  const eol = eolStyle(lines);
  const utf8 = isUtf8(data);
  const facts: string[] = [];
  if (lines.length === 0) facts.push('empty file');
  else if (shownTo === first)
    facts.push(`offset ${request.offset} is past the end: the file has ${lines.length} line(s)`);
  else facts.push(`lines ${request.offset}-${shownTo} of ${total ?? `more than ${lines.length}`}`);
  facts.push(formatBytes(stats.size));
  if (eol === 'crlf' || eol === 'mixed')
    facts.push(eol === 'crlf' ? 'CRLF line breaks' : 'mixed LF/CRLF line breaks');
  if (complete && lines.length > 0 && lines[lines.length - 1]!.next === lines[lines.length - 1]!.end)
    facts.push('no newline at end');
  if (!utf8) facts.push('not valid UTF-8: bad bytes shown as �, kept as they are by the edit tools');
  if (link !== undefined) facts.push(`a symlink to ${link}`);
  const version = complete && whole ? versionOf(data) : undefined;
  if (version !== undefined) facts.push(`version ${version}`);
  const more = total === undefined ? shownTo < lines.length || !complete : shownTo < total;
  const notes = [`[${facts.join(' · ')}]`];
  if (more && shownTo > first)
    notes.push(
      `[${cutByBytes ? `output cut at ${settings.outputMaxBytes} bytes` : 'more lines follow'}: call again with offset=${shownTo + 1} to read on]`,
    );
  return {
    text: [...out, ...notes].join('\n'),
    structured: {
      path: request.path,
      size: stats.size,
      start_line: request.offset,
      end_line: shownTo,
      total_lines: total ?? null,
      truncated: more,
      ...(more && { next_offset: shownTo + 1 }),
      line_breaks: eol,
      utf8,
      ...(version !== undefined && { version }),
      ...(link !== undefined && { resolved_path: link }),
    },
  };
}
