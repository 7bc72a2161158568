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

/** A server name as a file name: anything outside [A-Za-z0-9_.-] becomes `_`, no leading dot. */
export function logFileName(server: string): string {
  const safe = server.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_');
  return `${safe || '_'}.log`;
}
