/**
 * The environment a stdio server starts with: a small allowlist of the parent's variables
 * (what a program needs to find binaries, a home and a locale) plus the server's own `env`.
 * Secrets in the parent's environment (cloud keys, tokens) are not passed on by default.
 */
const POSIX_ALLOWLIST = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TZ',
  'NODE_EXTRA_CA_CERTS',
];
const WINDOWS_ALLOWLIST = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
  'COMSPEC',
];

/** The names inherited from the parent on this platform. */
export function inheritedEnvNames(platform: NodeJS.Platform = process.platform): readonly string[] {
  return platform === 'win32' ? WINDOWS_ALLOWLIST : POSIX_ALLOWLIST;
}

/** Builds a child environment: allowlisted parent variables, then `own` on top. */
export function buildChildEnv(
  parent: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of inheritedEnvNames(platform)) {
    const value = parent[name];
    // Exported shell functions ("() { …") are a known injection vector; never forward them.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return { ...env, ...own };
}
