import { interpolate } from '../../interpolate.js';
import type { RawServerEntry } from '../../server-config.js';

/**
 * Which values of an imported server entry are secrets, and the entry with each of them
 * replaced by a `${VAR}` reference — so an import writes no credential into a config file a
 * person may commit (the values go to the data dir's env file, secrets-env.ts). Pure.
 *
 * A secret is decided by where a value sits, not by guessing at text: an `env` variable or a
 * header whose name says it holds one (a word such as TOKEN, KEY, SECRET, PASSWORD, AUTH,
 * COOKIE, CREDENTIAL: `GITHUB_PERSONAL_ACCESS_TOKEN`, `Authorization`, `X-Api-Key`), the
 * argument after such a flag (`--api-key X`, `--token=X`), such a URL query parameter, and
 * a URL's password. A value in the shape of a well-known token (GitHub's `ghp_…`, Slack's
 * `xoxb-…`, an `sk-…` key, AWS's `AKIA…`) counts wherever it sits in env, headers or args.
 * A value that already refers to a variable is left alone: it holds no secret itself.
 */
export interface MovedSecret {
  /** The variable the entry now refers to. */
  readonly variable: string;
  /** Its value, as the server would have been given it. */
  readonly value: string;
  /** Where it was: `env.GITHUB_TOKEN`, `headers.Authorization`, `args[3]`, `url`. */
  readonly field: string;
}

/** Name words that mark a secret. */
const SECRET_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'pass',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'pat',
  'bearer',
  'signature',
]);

/** Values in the shape of well-known credentials (issuers document these prefixes). */
const TOKEN_SHAPES: readonly RegExp[] = [
  /^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})$/,
  /^glpat-[A-Za-z0-9_-]{20,}$/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/,
  /^sk-[A-Za-z0-9_-]{20,}$/,
  /^(sk|rk)_(live|test)_[A-Za-z0-9]{16,}$/,
  /^AKIA[0-9A-Z]{16}$/,
];

/** An HTTP auth scheme before the credential: kept in the value, the credential replaced. */
const SCHEME = /^(Bearer|Basic|Token|Bot)\s+(\S.*)$/i;

/** True when `name` (an env variable, header, flag or query parameter) says it holds a secret. */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  return words.some(
    (w) => SECRET_WORDS.has(w) || w.endsWith('token') || w.endsWith('secret') || w.endsWith('apikey'),
  );
}

/** True when `value` has the shape of a well-known credential. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPES.some((shape) => shape.test(value));
}

/** The literal a value stands for, or undefined when it refers to a variable (nothing to move). */
function literal(value: string): string | undefined {
  let refers = false;
  const probe = new Proxy({} as Record<string, string | undefined>, {
    get: () => {
      refers = true;
      return undefined;
    },
  });
  try {
    const text = interpolate(value, probe, { server: '', field: '' });
    return refers ? undefined : text;
  } catch {
    return undefined;
  }
}

/** A value written back into our syntax: a literal `$` is `$$`. */
const escaped = (text: string) => text.replaceAll('$', '$$$$');

/** `github` + `GITHUB_TOKEN` → `GITHUB_TOKEN`; `brave` + `api-key` → `BRAVE_API_KEY`. */
function variableName(server: string, name: string): string {
  const part = (text: string) =>
    text
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  const prefix = part(server) || 'SERVER';
  const rest = part(name) || 'SECRET';
  const joined = rest === prefix || rest.startsWith(`${prefix}_`) ? rest : `${prefix}_${rest}`;
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/**
 * Moves the secrets out of `entry`. `taken(variable, value)` says whether a variable of that
 * name already holds another value (in the env file, or earlier in this import); such a name
 * gets a number (`_2`, `_3`, …). The entry keeps every other field as it was.
 */
export function extractSecrets(
  entry: RawServerEntry,
  taken: (variable: string, value: string) => boolean = () => false,
): { readonly entry: RawServerEntry; readonly secrets: readonly MovedSecret[] } {
  const secrets: MovedSecret[] = [];
  const server = entry.name ?? 'server';
  /** Replaces one secret literal, returning the reference that stands for it. */
  const move = (value: string, name: string, field: string): string => {
    const base = variableName(server, name);
    let variable = base;
    for (
      let n = 2;
      taken(variable, value) || secrets.some((s) => s.variable === variable && s.value !== value);
      n++
    )
      variable = `${base}_${n}`;
    if (!secrets.some((s) => s.variable === variable)) secrets.push({ variable, value, field });
    return `\${${variable}}`;
  };
  /** A named value (env, header): moved when the name or its shape says so. */
  const named = (value: string, name: string, field: string): string => {
    const text = literal(value);
    if (text === undefined || text === '') return value;
    const scheme = SCHEME.exec(text);
    const credential = scheme ? scheme[2]! : text;
    if (!isSecretName(name) && !looksLikeToken(credential)) return value;
    const ref = move(credential, name, field);
    return scheme ? `${escaped(scheme[1]!)} ${ref}` : ref;
  };

  const out: RawServerEntry = { ...entry };
  if (entry.env)
    out.env = Object.fromEntries(
      Object.entries(entry.env).map(([k, v]) => [k, named(v as string, k, `env.${k}`)]),
    );
  if (entry.headers)
    out.headers = Object.fromEntries(
      Object.entries(entry.headers).map(([k, v]) => [k, named(v as string, k, `headers.${k}`)]),
    );
  if (entry.args) out.args = moveArgs(entry.args as readonly string[], move);
  if (typeof entry.url === 'string') out.url = moveUrl(entry.url, move);
  return { entry: out, secrets };
}

/** `--token X`, `--token=X` and token-shaped arguments. */
function moveArgs(
  args: readonly string[],
  move: (value: string, name: string, field: string) => string,
): string[] {
  const out = [...args];
  for (let i = 0; i < out.length; i++) {
    const arg = out[i]!;
    const flag = /^--?([A-Za-z][\w-]*)(=(.*))?$/.exec(arg);
    if (flag && isSecretName(flag[1]!)) {
      if (flag[2] !== undefined) {
        const text = literal(flag[3]!);
        if (text) out[i] = `--${flag[1]}=${move(text, flag[1]!, `args[${i}]`)}`;
      } else if (i + 1 < out.length && !out[i + 1]!.startsWith('-')) {
        const text = literal(out[i + 1]!);
        if (text) out[i + 1] = move(text, flag[1]!, `args[${i + 1}]`);
        i++;
      }
      continue;
    }
    const text = literal(arg);
    if (text && looksLikeToken(text)) out[i] = move(text, 'token', `args[${i}]`);
  }
  return out;
}

/** A URL's password and its secret query parameters. */
function moveUrl(url: string, move: (value: string, name: string, field: string) => string): string {
  const text = literal(url);
  if (text === undefined) return url;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return url;
  }
  let changed = false;
  // Rebuilt by hand: URLSearchParams would percent-encode the `${…}` of a reference.
  const query = [...parsed.searchParams.entries()].map(([k, v]) => {
    if (v === '' || !(isSecretName(k) || looksLikeToken(v)))
      return `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
    changed = true;
    return `${encodeURIComponent(k)}=${move(v, k, 'url')}`;
  });
  let auth = '';
  if (parsed.password !== '') {
    changed = true;
    auth = `${parsed.username}:${move(decodeURIComponent(parsed.password), 'url_password', 'url')}@`;
  } else if (parsed.username !== '') auth = `${parsed.username}@`;
  if (!changed) return url;
  const search = query.length > 0 ? `?${query.join('&')}` : '';
  return `${parsed.protocol}//${auth}${parsed.host}${escaped(parsed.pathname)}${search}${escaped(parsed.hash)}`;
}
