/**
 * `grep_files`: the lines of remote files that match a JavaScript regular expression, as
 * `path:line:text`. The files are read over SFTP and matched here, not by a remote `grep`:
 * one regex dialect (the one the tool describes, whatever grep the host has — GNU, BusyBox,
 * BSD, or none on an SFTP-only account), the same binary rule as read_file, and no shell
 * command built from a model's pattern. The cost is that the bytes cross the connection, so a
 * search is bounded: `SSH_MCP_GREP_MAX_FILES` files, `SSH_MCP_GREP_MAX_BYTES` bytes, files above
 * `SSH_MCP_FILE_MAX` skipped, `max_results` hits, the file tools' deadline; each bound that
 * stops it is named in the answer. Symlinks are not followed; .git, .hg and .svn are not entered.
 */
import { posix } from 'node:path';
import { SshError } from './errors.js';
import { LineMatcher } from './line-matcher.js';
import { binaryFile, remotePath } from './read-file.js';
import type { RemoteFs } from './remote-fs.js';
import { globMatcher, walkTree } from './remote-walk.js';
import type { SshSettings } from './settings.js';
import { formatBytes, looksBinary } from './text-lines.js';

/** What grep_files is asked for. */
export interface GrepRequest {
  readonly pattern: string;
  readonly path: string;
  readonly glob: string | undefined;
  readonly ignoreCase: boolean;
  readonly maxResults: number;
}

const VCS_DIRS = new Set(['.git', '.hg', '.svn']);
/** Files read ahead at once: SFTP answers in parallel, which hides the round trips. */
const READ_AHEAD = 8;
/** How long the pattern may run on one file. */
const SCAN_TIMEOUT_MS = 5_000;
/** A hit's line is shown up to this many characters, around the match. */
const SNIPPET_CHARS = 300;

/** The part of a long line around `column`. Pure. */
export function snippet(line: string, column: number): string {
  if (line.length <= SNIPPET_CHARS) return line;
  const start = Math.max(0, Math.min(column - 100, line.length - SNIPPET_CHARS));
  const end = start + SNIPPET_CHARS;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

/** Searches the file or folder at `request.path`. */
export async function grepRemote(
  fs: RemoteFs,
  settings: SshSettings,
  request: GrepRequest,
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const matcher = new LineMatcher(request.pattern, { ignoreCase: request.ignoreCase });
  const match = globMatcher(request.glob);
  const path = remotePath(request.path);
  const top = await fs.stat(path);
  const hits: string[] = [];
  const files = new Set<string>();
  const skipped = { binary: 0, large: 0, unreadable: 0 };
  let searched = 0;
  let bytes = 0;
  let stop: string | undefined;

  const search = (shown: string, data: Buffer) => {
    searched++;
    if (looksBinary(data)) {
      skipped.binary++;
      return;
    }
    const text = data.toString('utf8');
    const found = matcher.scan(text, request.maxResults - hits.length, SCAN_TIMEOUT_MS, shown);
    if (found.length === 0) return;
    const lines = text.split('\n');
    files.add(shown);
    for (const hit of found)
      hits.push(`${shown}:${hit.line + 1}:${snippet(lines[hit.line]!.replace(/\r$/, ''), hit.column)}`);
    if (hits.length >= request.maxResults) stop = `${request.maxResults} matches (max_results)`;
  };

  if (!top.isDirectory()) {
    if (!top.isFile()) throw new SshError('NOT_A_FILE', `${request.path} is neither a file nor a folder.`);
    if (top.size > settings.fileMaxBytes)
      throw new SshError(
        'FILE_TOO_LARGE',
        `${request.path} is larger than ${settings.fileMaxBytes} bytes (SSH_MCP_FILE_MAX); use exec with grep on it.`,
      );
    const data = await fs.readWhole(path, settings.fileMaxBytes);
    if (looksBinary(data)) throw binaryFile(request.path, data.length);
    bytes = data.length;
    search(request.path, data);
  } else {
    const pending: { shown: string; data: Promise<Buffer | undefined> }[] = [];
    const settle = async () => {
      const next = pending.shift()!;
      const data = await next.data;
      // Files already being read are searched even after the file or byte bound stopped the walk.
      if (data !== undefined && hits.length < request.maxResults) search(next.shown, data);
    };
    const walk = walkTree(fs, path, {
      maxDepth: settings.transferMaxDepth,
      skipDir: (name) => VCS_DIRS.has(name),
      onUnreadable: () => skipped.unreadable++,
    });
    for await (const entry of walk) {
      if (stop !== undefined) break;
      if (entry.kind !== 'file' || (match !== undefined && !match(entry.rel))) continue;
      if (entry.stats.size > settings.fileMaxBytes) {
        skipped.large++;
        continue;
      }
      if (searched + pending.length >= settings.grepMaxFiles) {
        stop = `${settings.grepMaxFiles} files searched (SSH_MCP_GREP_MAX_FILES)`;
        break;
      }
      if (bytes + entry.stats.size > settings.grepMaxBytes) {
        stop = `${formatBytes(bytes)} read (SSH_MCP_GREP_MAX_BYTES)`;
        break;
      }
      bytes += entry.stats.size;
      const data = fs.readWhole(entry.path, settings.fileMaxBytes).catch((error: unknown) => {
        if (!(error instanceof SshError) || error.code === 'TIMEOUT') throw error;
        skipped.unreadable++;
        return undefined;
      });
      data.catch(() => undefined);
      pending.push({ shown: posix.join(request.path, entry.rel), data });
      if (pending.length >= READ_AHEAD) await settle();
    }
    while (pending.length > 0) await settle();
  }

  const facts = [
    `${hits.length} match${hits.length === 1 ? '' : 'es'} in ${files.size} file${files.size === 1 ? '' : 's'}`,
    `searched ${searched} file${searched === 1 ? '' : 's'} (${formatBytes(bytes)})`,
  ];
  const skips = [
    skipped.binary > 0 && `${skipped.binary} binary`,
    skipped.large > 0 && `${skipped.large} over ${formatBytes(settings.fileMaxBytes)}`,
    skipped.unreadable > 0 && `${skipped.unreadable} unreadable`,
  ].filter(Boolean);
  if (skips.length > 0) facts.push(`skipped ${skips.join(', ')}`);
  const notes = [`[${facts.join(' · ')}]`];
  if (stop !== undefined)
    notes.push(
      `[stopped at ${stop}; narrow it with path or glob, or use exec with grep -rn for a whole tree]`,
    );
  const head =
    hits.length === 0 ? [`No line matches /${request.pattern}/${request.ignoreCase ? 'i' : ''}.`] : hits;
  return {
    text: [...head, ...notes].join('\n'),
    structured: {
      matches: hits.length,
      files_with_matches: files.size,
      files_searched: searched,
      bytes_searched: bytes,
      skipped,
      stopped: stop ?? null,
    },
  };
}
