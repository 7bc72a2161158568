import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a CLI invocation keeps its store, logs, tokens and inbox socket — decided in one place
 * for every verb, so `inbox`, `list` or `call` next to `npm start` find the data `start` made:
 *
 * 1. `--data-dir DIR`, when given;
 * 2. else a project's own `.switchboard/` folder: in the config folder (`--config`, default the
 *    working directory) or, up from it, in the folder of the project it is part of (the
 *    nearest one holding `package.json` or `.git`) — where `start` puts its store;
 * 3. else `~/.switchboard`.
 *
 * `start` (the demo) always takes the project's folder, creating it (`create: true`).
 */
export interface DataDirChoice {
  readonly dir: string;
  /** Why this one: the flag, a project's `.switchboard/`, or the user default. */
  readonly from: 'flag' | 'project' | 'home';
}

/** The name of a project's own data folder, and of the user's. */
export const DATA_DIR_NAME = '.switchboard';

/** The file-system questions the choice asks; replaced in unit tests. */
export interface DataDirProbe {
  isDirectory(path: string): boolean;
  exists(path: string): boolean;
}

const fsProbe: DataDirProbe = {
  isDirectory: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true,
  exists: (path) => statSync(path, { throwIfNoEntry: false }) !== undefined,
};

/** Marks a project's root folder: the walk up from the config folder stops there. */
const PROJECT_MARKERS = ['package.json', '.git'];

/** Chooses the data dir (see the interface). Pure but for `probe`. */
export function resolveDataDir(
  options: {
    readonly flag?: string | undefined;
    readonly projectDir: string;
    readonly homeDir: string;
    readonly create?: boolean;
  },
  probe: DataDirProbe = fsProbe,
): DataDirChoice {
  if (options.flag !== undefined) return { dir: options.flag, from: 'flag' };
  const home = join(options.homeDir, DATA_DIR_NAME);
  const candidates = projectCandidates(options.projectDir, options.homeDir, probe);
  const found = candidates.find((dir) => dir !== home && probe.isDirectory(dir));
  if (found !== undefined) return { dir: found, from: 'project' };
  if (options.create) return { dir: candidates.at(-1)!, from: 'project' };
  return { dir: home, from: 'home' };
}

/**
 * `<dir>/.switchboard` for the config folder and each folder above it up to the project's root
 * (the nearest holding a marker), nearest first; only the config folder's own when no project
 * root is above it (the walk never wanders into /tmp or /). The last one is where a project's
 * data dir is made.
 */
function projectCandidates(projectDir: string, homeDir: string, probe: DataDirProbe): string[] {
  const chain: string[] = [];
  for (let dir = projectDir; ; dir = dirname(dir)) {
    chain.push(dir);
    if (PROJECT_MARKERS.some((m) => probe.exists(join(dir, m)))) {
      return chain.map((d) => join(d, DATA_DIR_NAME));
    }
    // The home folder ends the walk: its .switchboard is the user default, not a project's.
    if (dir === homeDir || dirname(dir) === dir) break;
  }
  return [join(projectDir, DATA_DIR_NAME)];
}
