/**
 * `list_files`: a remote folder's entries, one a line — kind (dir, file, link, other), size in
 * bytes, modification time (UTC) and path below the folder; a symlink shows its target, not
 * followed — to a depth, optionally filtered by a glob, capped at `max_entries` with a note.
 */
import type { SshError } from './errors.js';
import { remotePath } from './read-file.js';
import type { RemoteFs } from './remote-fs.js';
import { globMatcher, kindOf, type WalkEntry, walkTree } from './remote-walk.js';

/** What list_files is asked for. */
export interface ListRequest {
  readonly path: string;
  readonly depth: number;
  readonly glob: string | undefined;
  readonly maxEntries: number;
}

function mtime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** One entry as list_files prints it. Pure. */
export function entryLine(entry: {
  kind: string;
  size: number;
  mtime: number;
  rel: string;
  target?: string;
}): string {
  const size = entry.kind === 'file' ? String(entry.size) : '-';
  const name = entry.kind === 'dir' ? `${entry.rel}/` : entry.rel;
  const target = entry.target === undefined ? '' : ` -> ${entry.target}`;
  return `${entry.kind.padEnd(5)} ${size.padStart(11)}  ${mtime(entry.mtime)}  ${name}${target}`;
}

/** Lists the folder (or the one file) at `request.path`. */
export async function listRemote(
  fs: RemoteFs,
  request: ListRequest,
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const path = remotePath(request.path);
  const absolute = await fs.realpath(path);
  const top = await fs.lstat(path);
  const match = globMatcher(request.glob);
  const rows: { kind: string; size: number; mtime: number; rel: string; target?: string; mode: number }[] =
    [];
  const unreadable: string[] = [];
  let more = false;
  const add = async (entry: Pick<WalkEntry, 'rel' | 'kind' | 'stats' | 'path'>) => {
    const target = entry.kind === 'link' ? await fs.readlink(entry.path).catch(() => '?') : undefined;
    rows.push({
      kind: entry.kind,
      size: entry.stats.size,
      mtime: entry.stats.mtime,
      rel: entry.rel,
      mode: entry.stats.mode & 0o7777,
      ...(target !== undefined && { target }),
    });
  };
  if (!top.isDirectory() && !(top.isSymbolicLink() && (await fs.stat(path)).isDirectory())) {
    await add({ rel: request.path, kind: kindOf(top), stats: top, path });
  } else {
    const walk = walkTree(fs, path, {
      maxDepth: request.depth,
      onUnreadable: (rel: string, error: SshError) => unreadable.push(`${rel} (${error.code})`),
    });
    for await (const entry of walk) {
      if (match !== undefined && !match(entry.rel)) continue;
      if (rows.length >= request.maxEntries) {
        more = true;
        break;
      }
      await add(entry);
    }
  }
  const header = `${absolute}${top.isDirectory() ? '/' : ''}: ${rows.length} entr${rows.length === 1 ? 'y' : 'ies'}${request.glob ? ` matching ${request.glob}` : ''}, depth ${request.depth} (kind, bytes, modified UTC, path)`;
  const notes: string[] = [];
  if (more)
    notes.push(
      `[stopped at ${request.maxEntries} entries (max_entries); narrow it with a glob, a smaller depth or a subfolder]`,
    );
  if (unreadable.length > 0) notes.push(`[not readable by the login user: ${unreadable.join(', ')}]`);
  return {
    text: [header, ...rows.map(entryLine), ...notes].join('\n'),
    structured: {
      path: absolute,
      entries: rows.map((r) => ({
        ...r,
        mtime: new Date(r.mtime * 1000).toISOString(),
        mode: r.mode.toString(8),
      })),
      truncated: more,
      unreadable,
    },
  };
}
