import { basename, join } from 'node:path';

/**
 * The package caches of launchers (`npx`, `npm exec`, `uvx`, `uv`) as a sandboxed server sees
 * them. Its HOME is its state directory, so by itself a launcher caches into its own
 * `~/.npm` or `~/.cache/uv` there, writable and kept between starts. With `launcherCache:
 * "shared"` (the default) and a bubblewrap that mounts overlays (0.9+), the user's cache is laid
 * read-only beneath that: what the user has cached starts without the network, and what the
 * server writes lands in its own upper layer — the user's cache cannot be poisoned. Pure: the
 * caller checks which caches exist and makes the layers' directories.
 */

/** One cache to lay beneath the server's own. */
export interface LauncherCacheLayer {
  /** Its name, for directories and messages ("npm", "uv", "uv-python"). */
  readonly name: string;
  /** The user's cache on the host (the read-only lower layer). */
  readonly lower: string;
  /** Where the launcher inside looks for it (below its HOME, the state directory). */
  readonly inside: string;
}

const NPM = new Set(['npx', 'npm', 'npx-cli.js', 'npm-cli.js']);
const UV = new Set(['uvx', 'uv']);

/** Which launcher `command` is (by its name, or the name of what it links to). */
export function launcherOf(command: string, real: string): 'npm' | 'uv' | undefined {
  for (const name of [basename(command), basename(real)]) {
    if (NPM.has(name)) return 'npm';
    if (UV.has(name)) return 'uv';
  }
  return undefined;
}

/**
 * The user's caches a launcher reads and where it looks for them inside, from the host's
 * environment (npm: `npm_config_cache`, else ~/.npm; uv: `UV_CACHE_DIR`, else the XDG cache
 * directory's `uv`, and its managed Pythons, `UV_PYTHON_INSTALL_DIR`, else the XDG data
 * directory's `uv/python`).
 */
export function cacheLayers(
  launcher: 'npm' | 'uv',
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  stateDir: string,
): LauncherCacheLayer[] {
  if (launcher === 'npm') {
    return [
      { name: 'npm', lower: env.npm_config_cache || join(home, '.npm'), inside: join(stateDir, '.npm') },
    ];
  }
  const cache = env.XDG_CACHE_HOME || join(home, '.cache');
  const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
  return [
    { name: 'uv', lower: env.UV_CACHE_DIR || join(cache, 'uv'), inside: join(stateDir, '.cache', 'uv') },
    {
      name: 'uv-python',
      lower: env.UV_PYTHON_INSTALL_DIR || join(data, 'uv', 'python'),
      inside: join(stateDir, '.local', 'share', 'uv', 'python'),
    },
  ];
}

/** Where a layer's writable upper and overlayfs work directories live, in the state directory. */
export function layerDirs(stateDir: string, layer: LauncherCacheLayer): { upper: string; work: string } {
  const base = join(stateDir, '.launcher-cache', layer.name);
  return { upper: join(base, 'upper'), work: join(base, 'work') };
}
