/**
 * Complete lines out of chunks read while a log file grows (`switchboard logs -f`). Pure.
 * Parsing a line, and taking the last lines of a text, is the host's (host/logs/log-parse.ts).
 */

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
