import { DEFAULT_SANDBOX_ENV } from '../../core/config/sandbox-config.js';

/**
 * The environment a sandboxed server starts with: the host's variables whose names the sandbox
 * lets in (DEFAULT_SANDBOX_ENV and the profile's `env`; `NAME_*` is a prefix), then the entry's
 * own `env` as written. `HOME`, `TMPDIR` and `SWITCHBOARD_STATE_DIR` are set by the launch
 * (bwrap-args.ts), whatever is passed. Exported shell functions (`() {…`) never pass. Pure.
 */
export function sandboxEnv(
  host: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  const allowed = [...DEFAULT_SANDBOX_ENV, ...names];
  const exact = new Set(allowed.filter((n) => !n.endsWith('*')));
  const prefixes = allowed.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || value.startsWith('()')) continue;
    if (exact.has(name) || prefixes.some((p) => name.startsWith(p))) out[name] = value;
  }
  return { ...out, ...own };
}

/** The variable naming a sandboxed server's state directory, for `${…}` in its entry and in its environment. */
export const STATE_DIR_VAR = 'SWITCHBOARD_STATE_DIR';
