/**
 * Local paths of upload and download stay inside one folder (the local root), checked after
 * every symlink is resolved: a model that can name any path would otherwise upload the host's
 * own secrets somewhere, or download over them.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SshError } from './errors.js';

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function outside(path: string, root: string): SshError {
  return new SshError(
    'PATH_OUTSIDE_ROOT',
    `${path} is outside the local root ${root} (symlinks resolved); use a path inside it, or start the server with SSH_MCP_LOCAL_ROOT set to a folder that holds it.`,
  );
}

/** An existing local path, resolved; an error when it is missing or leaves the root. */
export async function existingLocal(root: string, path: string): Promise<string> {
  const rootReal = await realpath(root);
  let real: string;
  try {
    real = await realpath(resolve(rootReal, path));
  } catch (error) {
    throw new SshError(
      'TRANSFER_FAILED',
      `${path} does not exist locally; check the path (relative paths start at ${rootReal}).`,
      {
        cause: error,
      },
    );
  }
  if (!inside(rootReal, real)) throw outside(path, rootReal);
  return real;
}

/**
 * A local path to write, resolved through its deepest existing ancestor (so a symlinked
 * folder or file on the way cannot lead out); the rest does not exist yet.
 */
export async function writableLocal(root: string, path: string): Promise<string> {
  const rootReal = await realpath(root);
  const wanted = resolve(rootReal, path);
  let existing = wanted;
  const rest: string[] = [];
  for (let i = 0; i < 4096; i++) {
    try {
      await lstat(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      rest.unshift(existing.slice(parent.length).replace(/^[/\\]/, ''));
      existing = parent;
    }
  }
  const real = join(await realpath(existing), ...rest);
  if (!inside(rootReal, real)) throw outside(path, rootReal);
  return real;
}
