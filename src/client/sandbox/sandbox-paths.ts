import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwitchboardError } from '../../core/errors.js';
import { type SystemEntry, within } from './bwrap-args.js';
import { findExecutable } from './bwrap-probe.js';

/**
 * The paths a sandboxed launch grants, found on the host: the system's (`SYSTEM_PATHS`), the
 * program's own, the profile's and the roots' (each checked to exist: bubblewrap cannot bind
 * what is not there).
 *
 * What the program itself needs is granted read-only without being asked: the directory tree
 * it was installed in (e.g. a Node installation under ~/.nvm), and for every argument that is
 * an existing file (a script), the package it belongs to (`packageRoot`), else the file alone.
 * Directories named in arguments are not granted: what a server works on is granted by its
 * profile or its roots.
 */

/** The system's programs, libraries and the files of /etc a program commonly reads. */
export const SYSTEM_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/ssl',
  '/etc/pki',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/mime.types',
];

/** A granted path: absolute, existing (bubblewrap cannot bind what is not there). */
export function grantedPath(path: string, server: string, field: string): string {
  if (!isAbsolute(path)) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `Server "${server}": sandbox.${field} holds "${path}", which is not an absolute path. Write it from the root, e.g. "/srv/data".`,
      { details: { server, reason: 'path', path } },
    );
  }
  const normalized = resolve(path);
  if (!existsSync(normalized)) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `Server "${server}": sandbox.${field} grants "${normalized}", which does not exist, so the sandbox cannot be set up. Create it, or remove it from the profile.`,
      { details: { server, reason: 'path', path: normalized } },
    );
  }
  return normalized;
}

export function rootPaths(roots: readonly { readonly uri: string }[], server: string): string[] {
  const out: string[] = [];
  for (const root of roots) {
    if (!root.uri.startsWith('file:')) continue;
    let path: string;
    try {
      path = fileURLToPath(root.uri);
    } catch {
      continue; // not a local path; the roots' own checks report it
    }
    out.push(grantedPath(path, server, 'roots'));
  }
  return out;
}

export interface Program {
  /** The path as found (spawned as such). */
  readonly path: string;
  /** Its real path (symlinks resolved). */
  readonly real: string;
}

/** The program as PATH finds it, or SPAWN_FAILED as an unsandboxed spawn would say. */
export function resolveProgram(command: string, searchPath: string, cwd: string | undefined): Program {
  const found = command.includes('/')
    ? resolve(cwd ?? process.cwd(), command)
    : findExecutable(command, searchPath.split(delimiter));
  if (!found || !existsSync(found)) {
    throw new SwitchboardError(
      'SPAWN_FAILED',
      `"${command}" was not found. Check that it is installed and on PATH, or give its full path.`,
      { details: { command, errno: 'ENOENT' } },
    );
  }
  return { path: found, real: realpathSync(found) };
}

/** The program's installation and its scripts' packages, outside the system paths. */
export function programPaths(program: Program, args: readonly string[], system: readonly string[]): string[] {
  const out = new Set<string>();
  const add = (path: string) => {
    if (!system.some((s) => within(path, s))) out.add(path);
  };
  for (const path of new Set([program.path, program.real])) {
    // The system's own program (/bin/true is /usr/bin/true): granted with the system.
    if (system.some((s) => within(path, s))) continue;
    const dir = dirname(path);
    // bin/node → the installation it is part of (lib/node_modules beside it), unless that is
    // `/` or the home directory: then the bin directory alone.
    const above = dirname(dir);
    add(basename(dir) === 'bin' && above !== '/' && above !== homedir() ? above : dir === '/' ? path : dir);
  }
  for (const arg of args) {
    if (!isAbsolute(arg) || !isFile(arg)) continue;
    add(packageRoot(realpathSync(arg)) ?? realpathSync(arg));
  }
  return [...out];
}

/**
 * What a script needs to run: for one inside a `node_modules` tree, that whole tree (its
 * dependencies are hoisted beside it); else its package, the nearest directory above it with a
 * package.json or pyproject.toml (never the home directory or `/`).
 */
function packageRoot(file: string): string | undefined {
  const modules = file.indexOf('/node_modules/');
  if (modules > 0) return file.slice(0, modules + '/node_modules'.length);
  const home = homedir();
  for (let dir = dirname(file); dir !== dirname(dir) && dir !== home; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'pyproject.toml'))) return dir;
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

let systemCache: SystemEntry[] | undefined;

/**
 * The system paths present here (looked up once per process: they are the system's): directories and files bound read-only; a symlink into another
 * of them (merged /usr: /bin → usr/bin) recreated as the symlink, any other (an /etc file that
 * points elsewhere) bound as what it points to.
 */
export function systemEntries(): SystemEntry[] {
  if (systemCache) return systemCache;
  const present = SYSTEM_PATHS.flatMap((path) => {
    try {
      return [{ path, stat: lstatSync(path) }];
    } catch {
      return [];
    }
  });
  const dirs = present.filter((p) => p.stat.isDirectory()).map((p) => p.path);
  systemCache = present.map(({ path, stat }): SystemEntry => {
    if (stat.isSymbolicLink()) {
      const real = realpathOrUndefined(path);
      if (real !== undefined && dirs.some((d) => within(real, d)))
        return { path, kind: 'symlink', target: readlinkSync(path) };
      return { path, kind: real !== undefined && isFile(real) ? 'file' : 'dir' };
    }
    return { path, kind: stat.isDirectory() ? 'dir' : 'file' };
  });
  return systemCache;
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
