import { posix } from 'node:path';
import type { RootConfig } from '../core/server-config.js';

/**
 * What a server is told when it asks `roots/list`, and why it matters: servers treat roots as
 * the directories they may work in, and some replace their own configured directories with
 * them (`@modelcontextprotocol/server-filesystem` does). So roots widen or narrow a server's
 * reach, and they come only from configuration:
 *  - the server entry's own `roots`;
 *  - else the roots the embedding application offers every server (`HostOptions.roots`, e.g.
 *    a coding agent's workspace);
 *  - else none: an empty list, which leaves a server with its own directories. Never the
 *    process's working directory, which a person starting a daemon does not think of as given.
 * A gateway client's own roots, relayed to the server its call runs on, are confined to those:
 * a client can narrow what a server sees, never widen it (`confineRoots`). Pure.
 */

/** The roots a client offers. */
export type Roots = { uri: string; name?: string }[];

/** The roots offered to a server: its entry's, else the embedding app's, else none. */
export function resolveRoots(
  configured: readonly RootConfig[] | undefined,
  offeredToAll: readonly RootConfig[] = [],
): Roots {
  const source = configured && configured.length > 0 ? configured : offeredToAll;
  return source.map((r) => ({ ...r }));
}

/**
 * The roots of `offered` that lie within `ceiling`: a `file:` root equal to or below one of
 * the ceiling's `file:` roots (compared as normalized paths, so `..` cannot climb out), any
 * other root only if the ceiling has exactly that URI. With an empty ceiling, nothing.
 */
export function confineRoots(offered: readonly { uri: string; name?: string }[], ceiling: Roots): Roots {
  const ceilingPaths = ceiling.map((r) => filePath(r.uri)).filter((p): p is string => p !== undefined);
  const ceilingUris = new Set(ceiling.map((r) => r.uri));
  return offered
    .filter((root) => {
      const path = filePath(root.uri);
      if (path === undefined) return ceilingUris.has(root.uri);
      return ceilingPaths.some((top) => path === top || path.startsWith(top === '/' ? '/' : `${top}/`));
    })
    .map((r) => ({ uri: r.uri, ...(r.name !== undefined && { name: r.name }) }));
}

/** The normalized absolute path of a `file:` URI on this host, or undefined for any other URI. */
function filePath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // A file: URI naming another host is not a path here.
  if (url.protocol !== 'file:' || (url.hostname !== '' && url.hostname !== 'localhost')) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (path.includes('\0')) return undefined;
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
