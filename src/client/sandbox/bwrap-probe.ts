import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { SwitchboardError } from '../../core/errors.js';

/**
 * Whether bubblewrap can sandbox here: it is installed, and it can create the namespaces a
 * sandbox needs (an unprivileged user namespace first of all, which distributions may switch
 * off: `kernel.unprivileged_userns_clone=0`, `user.max_user_namespaces=0`, or AppArmor's
 * `kernel.apparmor_restrict_unprivileged_userns=1`). Found out by running it once, for real,
 * with the namespaces a sandbox uses; a success is kept for the process's life, a failure is
 * not (installing bubblewrap and reconnecting is enough).
 */

/** A bubblewrap that works here. */
export interface Bwrap {
  readonly path: string;
  /** Knows `--disable-userns` (0.8.0 and later). */
  readonly disableUserns: boolean;
  /** Knows `--overlay` (0.9.0 and later); whether the kernel mounts one is `overlayWorks`. */
  readonly overlay: boolean;
}

const INSTALL =
  'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

const working = new Map<string, Promise<Bwrap>>();

/** Where bubblewrap is looked for by default: this process's PATH, then /usr/bin and /bin. */
export function defaultBwrapDirs(): string[] {
  return [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/bin'];
}

/** The bubblewrap to use (the first in `dirs`), or SANDBOX_UNAVAILABLE saying what to install or change. */
export function findBwrap(dirs: readonly string[] = defaultBwrapDirs()): Promise<Bwrap> {
  const key = dirs.join(delimiter);
  const known = working.get(key);
  if (known) return known;
  const attempt = probe(dirs);
  working.set(key, attempt);
  attempt.catch(() => {
    if (working.get(key) === attempt) working.delete(key);
  });
  return attempt;
}

async function probe(dirs: readonly string[]): Promise<Bwrap> {
  if (process.platform !== 'linux') {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `A sandbox needs Linux namespaces (bubblewrap), and this is ${process.platform}. Run the host on Linux (or in a Linux container), or set "sandbox": "off" if this server may run with your user's reach.`,
      { details: { reason: 'platform' } },
    );
  }
  const path = findExecutable('bwrap', dirs);
  if (!path) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `The server asks for a sandbox, and bubblewrap ("bwrap") is not installed. ${INSTALL}, then reload the server. It was not started unsandboxed.`,
      { details: { reason: 'bwrap-missing' } },
    );
  }
  const version = await run(path, ['--version']);
  const disableUserns = version.ok && atLeast(version.stdout, [0, 8, 0]);
  const overlay = version.ok && atLeast(version.stdout, [0, 9, 0]);
  // The same namespaces a sandbox asks for, around a program that does nothing.
  const tried = await run(path, [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--ro-bind',
    '/',
    '/',
    ...(disableUserns ? ['--disable-userns'] : []),
    '--',
    'true',
  ]);
  if (!tried.ok) {
    const said = tried.stderr.trim() || tried.error || 'no message';
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `The server asks for a sandbox, and bubblewrap (${path}) cannot create the namespaces it needs here: ${said}. ` +
        'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; ' +
        'on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), ' +
        'or in a container allow them (e.g. docker run --security-opt seccomp=unconfined). It was not started unsandboxed.',
      { details: { reason: 'namespaces-unavailable', bwrap: path, stderr: tried.stderr } },
    );
  }
  return { path, disableUserns, overlay };
}

const overlays = new Map<string, Promise<boolean>>();

/**
 * Whether bubblewrap can mount an overlay whose upper layer lies in `dir`'s file system (the
 * kernel allows overlayfs in a user namespace since 5.11; an upper layer on overlayfs itself,
 * as in many containers, it refuses). Found out once per directory by mounting one.
 */
export function overlayWorks(bwrap: Bwrap, dir: string): Promise<boolean> {
  if (!bwrap.overlay) return Promise.resolve(false);
  const key = `${bwrap.path}\0${dir}`;
  let known = overlays.get(key);
  if (!known) {
    known = (async () => {
      let base: string;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        base = mkdtempSync(join(dir, '.overlay-probe-'));
      } catch {
        return false;
      }
      try {
        for (const sub of ['lower', 'upper', 'work', 'merged']) mkdirSync(join(base, sub));
        const tried = await run(bwrap.path, [
          '--unshare-user',
          '--ro-bind',
          '/',
          '/',
          '--bind',
          base,
          base,
          '--overlay-src',
          join(base, 'lower'),
          '--overlay',
          join(base, 'upper'),
          join(base, 'work'),
          join(base, 'merged'),
          '--',
          'true',
        ]);
        return tried.ok;
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    })();
    overlays.set(key, known);
  }
  return known;
}

/** The first executable `name` in `dirs`, or undefined. */
export function findExecutable(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

interface Ran {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly error?: string;
}

function run(file: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, [...args], { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout, stderr, ...(error && { error: error.message }) }),
    );
  });
}

/** Whether `bubblewrap X.Y.Z` is at least `min`. */
function atLeast(text: string, min: readonly [number, number, number]): boolean {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!match) return false;
  const have = [Number(match[1]), Number(match[2]), Number(match[3])];
  for (let i = 0; i < 3; i++) if (have[i] !== min[i]) return have[i]! > min[i]!;
  return true;
}
