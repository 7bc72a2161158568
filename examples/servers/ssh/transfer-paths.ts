/**
 * Where a transfer lands, in scp/rsync's terms: a destination ending in `/`, or one that is an
 * existing directory, receives the source *into* it under the source's own name; any other
 * destination is the exact path the source gets. Pure, so both directions share one rule.
 */
import { posix } from 'node:path';
import { SshError } from './errors.js';

/** The destination path for a source named `sourceName`. `join` is posix or local path joining. */
export function landingPath(
  destination: string,
  destinationIsDirectory: boolean,
  sourceName: string,
  join: (...parts: string[]) => string,
): string {
  const into = destination.endsWith('/') || destinationIsDirectory;
  return into ? join(destination, sourceName) : destination;
}

/**
 * The last name of a path (ignoring trailing slashes). A source whose name is empty, `.` or
 * `..` (a root, or a path ending in dots) has no name to land under, so it must be named.
 */
export function sourceName(path: string): string {
  const name = posix.basename(path.replace(/\/+$/, ''));
  if (name === '' || name === '.' || name === '..')
    throw new SshError(
      'INVALID_ARGUMENT',
      `"${path}" has no file name of its own; name the folder or file itself.`,
    );
  return name;
}

/**
 * Whether a name from a remote directory listing is safe to create locally: one component,
 * never `.` or `..`, no separator or NUL — a hostile server must not steer writes elsewhere.
 */
export function safeEntryName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}
