import { createHash } from 'node:crypto';

/**
 * One line of a server's log file: `ISO-8601-UTC [tag] text`, with known secrets replaced by
 * `***`. Tags: `[stderr]`, `[lifecycle]`, the MCP level (`[info]`, `[error]`, …) for the
 * server's own log messages, `[stdout]` for non-protocol output. Pure.
 */
export interface LogLineInput {
  readonly at: Date;
  readonly source: 'stderr' | 'stdout' | 'server' | 'lifecycle';
  readonly level: string;
  readonly text: string;
}

const MIN_SECRET_LENGTH = 4;

/** Replaces every occurrence of each secret (longest first) with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join('***');
  }
  return out;
}

export function formatLogLine(entry: LogLineInput, secrets: readonly string[] = []): string {
  const tag = entry.source === 'server' ? entry.level : entry.source;
  // One entry is one line: embedded newlines would let a server forge other lines.
  const text = redact(entry.text, secrets).replace(/\r?\n/g, '\\n');
  return `${entry.at.toISOString()} [${tag}] ${text}\n`;
}

/** Characters of a name kept in its file name at most (file systems allow 255 bytes). */
const MAX_NAME_CHARS = 80;

/**
 * A server name as a flat, safe file name of any length: anything outside [A-Za-z0-9_.-]
 * becomes `_`, no leading dot, at most 80 characters. A name that had to change gets a short
 * hash of the real name, so two names never share a file (`a b` and `a_b`) and a name too
 * long for the file system (which once stopped the host at every start) still has one.
 */
export function logFileName(server: string): string {
  const safe = server.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
  if (safe === server && safe.length > 0 && safe.length <= MAX_NAME_CHARS) return `${safe}.log`;
  const digest = createHash('sha256').update(server).digest('hex').slice(0, 10);
  return `${safe.slice(0, MAX_NAME_CHARS) || '_'}-${digest}.log`;
}
