/**
 * Strict `known_hosts` checking in OpenSSH's format (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"):
 * plain and hashed (`|1|salt|hmac`) host patterns, `[host]:port` for ports other than 22,
 * `*`/`?` wildcards, `!` negation and the `@revoked` marker. A host whose recorded key differs
 * is refused, always; an unknown host is refused unless someone decided to trust it, and that
 * decision is written back so the next connection is checked against it.
 */
import { createHash, createHmac } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One usable line of a known_hosts file. */
interface Entry {
  readonly marker: 'revoked' | 'cert-authority' | undefined;
  readonly patterns: readonly string[];
  readonly type: string;
  readonly key: Buffer;
}

/** What the file says about a presented key. */
export type HostKeyVerdict =
  | { readonly kind: 'known' }
  | { readonly kind: 'revoked' }
  /** The host is recorded with other keys: `recorded` lists their fingerprints. */
  | { readonly kind: 'mismatch'; readonly recorded: readonly string[] }
  | { readonly kind: 'unknown' };

/** The name known_hosts uses for a host and port: `host`, or `[host]:port` off port 22. */
export function hostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** OpenSSH's fingerprint of a key blob: `SHA256:` and unpadded base64 of its SHA-256. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key type a wire-format public key blob names in its first string (RFC 4253 §6.6). */
export function keyType(key: Buffer): string {
  if (key.length < 4) return '';
  const length = key.readUInt32BE(0);
  return key.subarray(4, 4 + length).toString('latin1');
}

/** Parses a known_hosts text; comments, blank and malformed lines are skipped as ssh does. */
export function parseKnownHosts(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    let marker: Entry['marker'];
    if (fields[0] === '@revoked' || fields[0] === '@cert-authority') {
      marker = fields[0] === '@revoked' ? 'revoked' : 'cert-authority';
      fields.shift();
    }
    const [patterns, type, base64] = fields;
    if (patterns === undefined || type === undefined || base64 === undefined) continue;
    const key = Buffer.from(base64, 'base64');
    if (key.length === 0 || keyType(key) !== type) continue;
    entries.push({ marker, patterns: patterns.split(','), type, key });
  }
  return entries;
}

function wildcard(pattern: string, name: string): boolean {
  // ssh's match_pattern: `*` any run, `?` one character, case-insensitive for host names.
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 'i').test(name);
}

function patternMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith('|1|')) {
    const [, , salt, hash] = pattern.split('|');
    if (salt === undefined || hash === undefined) return false;
    const mac = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
    return mac === hash;
  }
  return wildcard(pattern, name);
}

/** Whether an entry's pattern list names the host (a matching `!pattern` excludes it). */
function entryMatches(entry: Entry, name: string): boolean {
  let matched = false;
  for (const pattern of entry.patterns) {
    if (pattern.startsWith('!')) {
      if (patternMatches(pattern.slice(1), name)) return false;
    } else if (patternMatches(pattern, name)) matched = true;
  }
  return matched;
}

/** The key types recorded for a host (to ask the server for one of those first). */
export function recordedTypes(entries: readonly Entry[], name: string): string[] {
  return [
    ...new Set(entries.filter((e) => e.marker === undefined && entryMatches(e, name)).map((e) => e.type)),
  ];
}

/**
 * Checks a presented key against the entries for `name`. Revoked wins over everything; a host
 * recorded with any plain key that is not this one is a mismatch — also when the recorded keys
 * are of another type, as a changed key type is no reason to trust a key nobody has seen.
 * (`@cert-authority` lines are not honoured: certificates are not offered, so they never apply.)
 */
export function checkHostKey(entries: readonly Entry[], name: string, key: Buffer): HostKeyVerdict {
  const matching = entries.filter((e) => entryMatches(e, name));
  if (matching.some((e) => e.marker === 'revoked' && e.key.equals(key))) return { kind: 'revoked' };
  const plain = matching.filter((e) => e.marker === undefined);
  if (plain.some((e) => e.key.equals(key))) return { kind: 'known' };
  if (plain.length > 0) return { kind: 'mismatch', recorded: plain.map((e) => fingerprint(e.key)) };
  return { kind: 'unknown' };
}

/** The known_hosts file: read on every check, appended to on a first-use decision. */
export class KnownHosts {
  constructor(readonly file: string) {}

  /** The parsed entries; a missing file has none. */
  async entries(): Promise<Entry[]> {
    try {
      return parseKnownHosts(await readFile(this.file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Records a key for a host, as `ssh` does after "yes" to its first-use question. */
  async add(name: string, key: Buffer): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    let prefix = '';
    try {
      const text = await readFile(this.file, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) prefix = '\n';
    } catch {
      // No file yet: appendFile creates it.
    }
    await appendFile(this.file, `${prefix}${name} ${keyType(key)} ${key.toString('base64')}\n`, {
      mode: 0o600,
    });
  }
}
