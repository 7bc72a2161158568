/**
 * Reading the host's per-server log files (`ISO-8601-UTC [tag] text`, host/logs/log-line.ts)
 * back: one line into its parts, the last lines of a text, and complete lines out of chunks
 * read while a file grows. Pure.
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

/**
 * Collects chunks of a growing file and hands out only complete lines; a line still being
 * written waits for its newline. `flush()` gives the rest (when the file is replaced).
 */
export class LineCollector {
  private rest = '';

  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      this.rest = text;
      return [];
    }
    this.rest = text.slice(end + 1);
    return text.slice(0, end).split('\n');
  }

  flush(): string[] {
    const rest = this.rest;
    this.rest = '';
    return rest === '' ? [] : [rest];
  }
}
