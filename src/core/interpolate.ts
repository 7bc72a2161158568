import { SwitchboardError } from './errors.js';

/**
 * Environment interpolation for config values: `${VAR}`, `$VAR` and `${VAR:-default}`.
 * `$$` is a literal dollar sign. An unset variable without a default is an error naming the
 * variable and where it was used: a literal `${VAR}` must never reach a server.
 */
const PATTERN = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Where an interpolated value comes from, for error messages ("server github, env GH_TOKEN"). */
export interface InterpolationSite {
  readonly server: string;
  readonly field: string;
}

/** Expands variables in `value` from `env`. Throws ENV_VAR_MISSING for an unset variable. */
export function interpolate(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  site: InterpolationSite,
): string {
  if (!value.includes('$')) return value;
  return value.replace(
    PATTERN,
    (match, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
      if (match === '$$') return '$';
      const name = (braced ?? bare) as string;
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      if (found !== undefined) return found;
      throw new SwitchboardError(
        'ENV_VAR_MISSING',
        `Server "${site.server}": ${site.field} uses \${${name}}, but ${name} is not set. ` +
          `Set ${name} in the environment, or write \${${name}:-default} to give a default.`,
        { details: { server: site.server, field: site.field, variable: name } },
      );
    },
  );
}

/** Interpolates every value of a string record (env, headers). */
export function interpolateRecord(
  values: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  site: InterpolationSite,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = interpolate(value, env, { server: site.server, field: `${site.field}.${key}` });
  }
  return out;
}
