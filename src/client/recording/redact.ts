/**
 * What a recording must not keep: credentials. Two kinds, both replaced by `[redacted]`:
 *  - the values configuration gives the server that are secrets — its `env` values, HTTP
 *    headers and auth token (`secretValues`), wherever they appear in the traffic (a server
 *    that echoes its own API key into a result);
 *  - the value of any field whose name says it holds a secret (`token`, `password`,
 *    `api_key`, `authorization`, `cookie`, `secret`, … in any case, with `_`/`-` or none), as
 *    an elicitation's secret answer or a login tool's argument would carry.
 * Pure: a copy of the message comes back; the original is not touched.
 */

const SECRET_NAME =
  /^(?:.*[_-])?(?:token|access[_-]?token|refresh[_-]?token|id[_-]?token|password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|private[_-]?key|authorization|cookie|set[_-]?cookie|session[_-]?key|credentials?)$/i;

export const REDACTED = '[redacted]';

/** Whether a field named `name` holds a secret by its name. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `value` with secret-named fields and every occurrence of `secretValues` replaced. */
export function redact<T>(value: T, secretValues: readonly string[] = []): T {
  // Short values would redact ordinary words ("on", "1"): only values that can be secrets.
  const needles = [...new Set(secretValues.filter((s) => s.length >= 6))].sort((a, b) => b.length - a.length);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return needles.length === 0 ? v : scrub(v, needles);
    if (typeof v !== 'object' || v === null || depth > 64) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] =
        isSecretName(k) && (typeof x === 'string' || typeof x === 'number') ? REDACTED : walk(x, depth + 1);
    }
    return out;
  };
  return walk(value, 0) as T;
}

function scrub(text: string, needles: readonly string[]): string {
  let out = text;
  for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
  return out;
}
