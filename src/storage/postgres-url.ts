/**
 * PostgreSQL connection URLs as Switchboard shows and recognises them: pure text handling,
 * kept apart from the driver so that it is tested without a server.
 */

/** Any `scheme://…` location; a SQLite file path never looks like this. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/** Whether `location` is a `postgres://` or `postgresql://` URL rather than a file path. */
export function isPostgresUrl(location: string): boolean {
  return POSTGRES_URL.test(location);
}

/** Whether `location` is written as a URL of any scheme (`mysql://`, `sqlite://`…). */
export function isUrlLike(location: string): boolean {
  return URL_LIKE.test(location);
}

/**
 * `url` fit for messages and logs: the password (in the user part or a `password` query
 * parameter) becomes `***`. A URL that does not parse is not shown at all, since where its
 * password starts cannot be told.
 */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a database URL that does not parse)';
  }
  if (parsed.password) parsed.password = '***';
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.href;
}

/**
 * The passwords in `url` as written and percent-decoded, so that a message built from a
 * driver's error can be scrubbed of them (see `scrubSecrets`).
 */
export function secretsOfUrl(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const raw = [parsed.password, parsed.searchParams.get('password') ?? ''].filter((s) => s !== '');
  return [...new Set(raw.flatMap((s) => [s, decodeOrSelf(s)]))];
}

/** `text` with every occurrence of each of `secrets` replaced by `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret !== '') result = result.split(secret).join('***');
  return result;
}

function decodeOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
