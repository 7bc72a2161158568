import type { ServerConfig } from '../../core/server-config.js';

/**
 * The environment variables a server entry refers to (`${VAR}`, `$VAR`, `${VAR:-default}`,
 * the grammar of core/interpolate.ts), found before anything is started, so `doctor` can name
 * every missing one at once rather than the first a connect would trip over. Pure.
 */

/** One reference: which variable, in which field, and whether it is usable. */
export interface VariableUse {
  readonly variable: string;
  /** The field, e.g. `env.GH_TOKEN`, `args[2]`, `headers.Authorization`, `auth.clientSecret`. */
  readonly field: string;
  /** `${VAR:-default}`: a default covers an unset variable. */
  readonly hasDefault: boolean;
  /** Set to a non-empty value in the environment. */
  readonly set: boolean;
}

const PATTERN = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The variables one string refers to (`$$` is a literal dollar). */
export function referencedVariables(text: string): { readonly name: string; readonly hasDefault: boolean }[] {
  const found: { name: string; hasDefault: boolean }[] = [];
  for (const m of text.matchAll(PATTERN)) {
    const name = m[1] ?? m[3];
    if (name !== undefined) found.push({ name, hasDefault: m[2] !== undefined });
  }
  return found;
}

/** The string fields of an entry that are interpolated when it connects, by field name. */
export function interpolatedFields(config: ServerConfig): [field: string, value: string][] {
  const t = config.transport;
  const fields: [string, string][] = [];
  const record = (prefix: string, values: Readonly<Record<string, string>>) => {
    for (const [key, value] of Object.entries(values)) fields.push([`${prefix}.${key}`, value]);
  };
  if (t.kind === 'stdio') {
    fields.push(['command', t.command]);
    for (const [i, a] of t.args.entries()) fields.push([`args[${i}]`, a]);
    record('env', t.env);
    if (t.cwd !== undefined) fields.push(['cwd', t.cwd]);
  } else {
    fields.push(['url', t.url]);
    record('headers', t.headers);
  }
  collectStrings('auth', config.auth, fields);
  return fields;
}

function collectStrings(path: string, value: unknown, into: [string, string][]): void {
  if (typeof value === 'string') into.push([path, value]);
  else if (Array.isArray(value))
    for (const [i, v] of value.entries()) collectStrings(`${path}[${i}]`, v, into);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) collectStrings(`${path}.${k}`, v, into);
}

/** Every variable use of the entry, checked against `env`. */
export function variableUses(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): VariableUse[] {
  return interpolatedFields(config).flatMap(([field, value]) =>
    referencedVariables(value).map(({ name, hasDefault }) => ({
      variable: name,
      field,
      hasDefault,
      set: env[name] !== undefined && env[name] !== '',
    })),
  );
}
