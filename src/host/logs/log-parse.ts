/**
 * Reading the host's per-server log files (`ISO-8601-UTC [tag] text`, log-line.ts) back: one
 * line into its parts, and the last lines of a text. Pure; the CLI's `logs` verb and the
 * dashboard's API both read logs through these.
 */

/** One log line: when, its tag (`stderr`, `lifecycle`, an MCP level…) and the text. */
export interface ParsedLogLine {
  readonly at?: string;
  readonly tag?: string;
  readonly text: string;
}

const LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) \[([^\]]+)\] ?(.*)$/;

/** Splits a line into time, tag and text; a line in another shape is all text. */
export function parseLogLine(line: string): ParsedLogLine {
  const m = LINE.exec(line);
  return m ? { at: m[1]!, tag: m[2]!, text: m[3]! } : { text: line };
}

/** The last `count` lines of `text` (a trailing newline ends the last line, it does not start one). */
export function lastLines(text: string, count: number): string[] {
  if (count <= 0 || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-count);
}
