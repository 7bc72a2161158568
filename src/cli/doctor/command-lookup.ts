import { posix, win32 } from 'node:path';

/**
 * Where a stdio server's command would be found, the way the process is spawned (no shell): a
 * command with a directory in it is taken as it is, relative to the server's working
 * directory; a bare name is tried in each `PATH` directory. On Windows a name without an
 * extension is tried with `.com` and `.exe` (what libuv's spawn tries; `.cmd` shims such as
 * `npx.cmd` do not start without a shell). Pure: the caller checks which candidate exists.
 */
export interface LookupOptions {
  /** The `PATH` the server is started with. */
  readonly path?: string;
  readonly platform?: NodeJS.Platform;
  /** The directory a relative command is resolved against. */
  readonly cwd: string;
}

/** The files that would run for `command`, in the order they are tried. */
export function commandCandidates(command: string, options: LookupOptions): string[] {
  const windows = (options.platform ?? process.platform) === 'win32';
  const path = windows ? win32 : posix;
  const variants = (file: string) =>
    windows && path.extname(file) === '' ? [`${file}.com`, `${file}.exe`] : [file];
  const hasDirectory = windows ? /[\\/]/.test(command) : command.includes('/');
  if (hasDirectory) return variants(path.resolve(options.cwd, command));
  const dirs = (options.path ?? '').split(windows ? ';' : ':').filter((d) => d !== '');
  return dirs.flatMap((dir) => variants(path.join(dir, command)));
}
