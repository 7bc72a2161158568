import { readFile } from 'node:fs/promises';
import type { LogEntry } from '../../client/connection-types.js';
import type { ServerConfig } from '../../core/server-config.js';
import { formatLogLine } from '../../host/logs/log-line.js';
import { lastLines, parseLogLine } from '../../host/logs/log-parse.js';
import { secretsOf } from '../../host/secrets.js';
import type { ApiLogLine } from './api-types.js';

/**
 * A server's log as the API shows it: the last lines of its file (reaching into the rotated
 * `.1` backup when the file is short), and new entries formatted exactly as the file has
 * them — same function, same secrets masked — so a followed log reads like its tail.
 */

/** Tags that name where a line came from; any other tag is the level of the server's own message. */
const SOURCES: ReadonlySet<string> = new Set(['stderr', 'stdout', 'lifecycle']);

/** One line of a log file, in its parts. */
export function toApiLogLine(line: string): ApiLogLine {
  const { at, tag, text } = parseLogLine(line);
  if (at === undefined || tag === undefined) return { text };
  return SOURCES.has(tag) ? { at, source: tag, text } : { at, source: 'server', level: tag, text };
}

/** The last `count` lines of the log `file` and its backup, oldest first, as they are written. */
export async function tailLog(file: string, count: number): Promise<string[]> {
  const current = lastLines(await readText(file), count);
  if (current.length >= count) return current;
  return [...lastLines(await readText(`${file}.1`), count - current.length), ...current];
}

/** An entry of the host's `log` event as its log file has the line (without the newline). */
export function logFileLine(entry: LogEntry, config: ServerConfig | undefined): string {
  return formatLogLine(entry, config ? secretsOf(config) : []).replace(/\n$/, '');
}

/**
 * `tail`, then the lines of `live` it does not hold yet. `live` are lines that arrived while
 * the tail was read, each written to the file just before it was announced: the tail may end
 * with the first of them, never with later ones alone.
 */
export function joinTail(tail: readonly string[], live: readonly string[]): string[] {
  for (let overlap = Math.min(tail.length, live.length); overlap > 0; overlap--) {
    const end = tail.slice(tail.length - overlap);
    if (end.every((line, i) => line === live[i])) return [...tail, ...live.slice(overlap)];
  }
  return [...tail, ...live];
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    // No file yet: a server that has not logged anything.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
