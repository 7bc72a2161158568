import { realpath } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UriTemplate } from '@modelcontextprotocol/client';

/**
 * Which resources an agent may read: a model picks the URI, and a URI is only text, so a
 * model talked into `file:///etc/shadow` or `file:///srv/project/../../home/me/.ssh/id_rsa` must not
 * get a server to read it. A read is allowed when
 *  - the server listed that URI, or it matches one of the server's resource templates
 *    (RFC 6570, as the server declared them): an unlisted URI is refused;
 *  - and, for a `file:` URI, its path lies inside one of the workspace roots the server is
 *    offered, compared after resolving symlinks (`realpath`, of the deepest part that
 *    exists), so neither `..` nor a link inside the root pointing out of it escapes. With no
 *    `file:` root there is no workspace, and no `file:` resource is read.
 * The listing check is pure (`judgeListed`); the path check touches the file system only to
 * resolve links (`judgeFilePath`).
 */

export type ScopeVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: ScopeVerdict = { ok: true };

/** The listing rule: `uri` is one the server listed, or fits one of its templates. */
export function judgeListed(
  uri: string,
  offered: { readonly listed: readonly string[]; readonly templates: readonly string[] },
): ScopeVerdict {
  if (offered.listed.includes(uri)) return OK;
  for (const template of offered.templates) {
    try {
      if (new UriTemplate(template).match(uri) !== null) return OK;
    } catch {
      // A template the server got wrong matches nothing.
    }
  }
  return {
    ok: false,
    reason: `${uri} is not a resource the server listed, nor does it fit one of its templates; list resources (and templates) and read one of those`,
  };
}

/** The workspace rule for `file:` URIs; any other scheme passes. */
export async function judgeFilePath(
  uri: string,
  roots: readonly { readonly uri: string }[],
): Promise<ScopeVerdict> {
  const path = localPath(uri);
  if (path === undefined) return OK;
  if (path === null) return { ok: false, reason: `${uri} is not a file: URI naming a path on this machine` };
  const tops = roots.map((r) => localPath(r.uri)).filter((p): p is string => typeof p === 'string');
  if (tops.length === 0) {
    return {
      ok: false,
      reason: `${uri} is a file, and no workspace root is configured for this server; add "roots" to its entry to let agents read files inside them`,
    };
  }
  const real = await deepestRealPath(path);
  for (const top of tops) {
    const realTop = await deepestRealPath(top);
    if (within(real, realTop)) return OK;
  }
  return {
    ok: false,
    reason: `${uri} is outside the workspace roots (${tops.join(', ')}), once links are resolved; only files inside them are read`,
  };
}

/** The normalized path of a `file:` URI; undefined for other schemes, null for a bad one. */
function localPath(uri: string): string | undefined | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'file:') return undefined;
  if (url.hostname !== '' && url.hostname !== 'localhost') return null;
  try {
    return posix.normalize(fileURLToPath(url));
  } catch {
    return null;
  }
}

/**
 * `path` with every symlink resolved: the real path of its deepest existing ancestor, with
 * the parts that do not exist (yet) appended, so a link anywhere on the way is followed.
 */
async function deepestRealPath(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (let depth = 0; depth < 4096; depth++) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) break;
      missing.push(basename(current));
      current = parent;
    }
  }
  return path;
}

function within(path: string, top: string): boolean {
  return path === top || path.startsWith(top.endsWith('/') ? top : `${top}/`);
}
