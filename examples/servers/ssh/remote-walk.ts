/**
 * Walking a remote folder tree over SFTP, depth first in name order, never following a
 * symlink (a link to `/` or a loop would otherwise walk forever), down to a depth limit.
 * Folders that cannot be read are reported, not fatal. Shared by list_files and grep_files,
 * each with its own glob (picomatch: `*`, `**`, `?`, `[...]`, `{a,b}`; a glob without `/`
 * matches the name alone, like `find -name`).
 */
import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { Stats } from 'ssh2';
import { SshError } from './errors.js';
import type { RemoteFs } from './remote-fs.js';

/** What an entry is. Symlinks are `link`, whatever they point to. */
export type EntryKind = 'dir' | 'file' | 'link' | 'other';

/** One entry met on the walk; `rel` is its path below the walked folder. */
export interface WalkEntry {
  readonly rel: string;
  readonly path: string;
  readonly kind: EntryKind;
  readonly stats: Stats;
  readonly depth: number;
}

/** How to walk. */
export interface WalkOptions {
  /** 1 lists the folder itself; 2 its subfolders too; and so on. */
  readonly maxDepth: number;
  /** Folders not entered (their entry is still seen). */
  readonly skipDir?: (name: string) => boolean;
  /** Called for a folder that cannot be read; the walk goes on. */
  readonly onUnreadable?: (rel: string, error: SshError) => void;
}

export function kindOf(stats: Stats): EntryKind {
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

/** Walks `root` (a folder); yields entries until the consumer stops. */
export async function* walkTree(fs: RemoteFs, root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  async function* visit(rel: string, depth: number): AsyncGenerator<WalkEntry> {
    fs.checkDeadline();
    let entries: Awaited<ReturnType<RemoteFs['readdir']>>;
    try {
      entries = await fs.readdir(rel === '' ? root : posix.join(root, rel));
    } catch (error) {
      if (rel === '' || !(error instanceof SshError)) throw error;
      options.onUnreadable?.(rel, error);
      return;
    }
    for (const entry of entries) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const kind = kindOf(entry.stats);
      yield { rel: childRel, path: posix.join(root, childRel), kind, stats: entry.stats, depth };
      if (kind === 'dir' && depth < options.maxDepth && !options.skipDir?.(entry.name))
        yield* visit(childRel, depth + 1);
    }
  }
  yield* visit('', 1);
}

/** A matcher for a glob, against a path below the walked folder; undefined matches everything. */
export function globMatcher(glob: string | undefined): ((rel: string) => boolean) | undefined {
  if (glob === undefined || glob === '') return undefined;
  try {
    // `dot`: hidden files are files too; `basename`: "*.ts" matches at any depth, as find -name.
    return picomatch(glob, { dot: true, basename: !glob.includes('/') });
  } catch (error) {
    throw new SshError(
      'INVALID_ARGUMENT',
      `The glob ${JSON.stringify(glob)} is malformed: ${(error as Error).message}.`,
    );
  }
}
