/**
 * Matching a model-given regular expression against a file's lines with a time bound. A
 * JavaScript regex can backtrack for hours (`(a+)+$` on a long run of `a`s), and it runs on
 * the thread that serves every other call; so the scan runs in a `vm` context whose
 * `timeout` interrupts it (V8's TerminateExecution reaches into regex execution) and the call
 * fails with a clear error instead of the server hanging.
 */
import { createContext, Script } from 'node:vm';
import { SshError } from './errors.js';

/** One hit: the 0-based line and the column (UTF-16 units) where the match starts. */
export interface Hit {
  readonly line: number;
  readonly column: number;
}

const SCAN = new Script(`(() => {
  const re = new RegExp(pattern, flags);
  const lines = text.split('\\n');
  const count = text.endsWith('\\n') ? lines.length - 1 : lines.length;
  const hits = [];
  for (let i = 0; i < count && hits.length < maxHits; i++) {
    const line = lines[i].endsWith('\\r') ? lines[i].slice(0, -1) : lines[i];
    const m = re.exec(line);
    if (m !== null) hits.push([i, m.index]);
  }
  return JSON.stringify(hits);
})()`);

/** A compiled pattern that scans text line by line. */
export class LineMatcher {
  private readonly context = createContext({});
  private readonly flags: string;

  constructor(
    readonly pattern: string,
    options: { readonly ignoreCase: boolean },
  ) {
    this.flags = options.ignoreCase ? 'i' : '';
    try {
      new RegExp(pattern, this.flags);
    } catch (error) {
      throw new SshError(
        'INVALID_ARGUMENT',
        `pattern is not a valid JavaScript regular expression: ${(error as Error).message}.`,
      );
    }
  }

  /** The first `maxHits` lines of `text` that match; throws `LIMIT` past `timeoutMs`. */
  scan(text: string, maxHits: number, timeoutMs: number, where: string): Hit[] {
    Object.assign(this.context, { pattern: this.pattern, flags: this.flags, text, maxHits });
    try {
      // The result crosses the context as JSON: plain data, nothing of the other realm.
      const hits = JSON.parse(SCAN.runInContext(this.context, { timeout: Math.max(1, timeoutMs) })) as [
        number,
        number,
      ][];
      return hits.map(([line, column]) => ({ line, column }));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
        throw new SshError(
          'LIMIT',
          `The pattern took more than ${Math.round(timeoutMs / 100) / 10} s on ${where} (a regex that backtracks without end, such as (a+)+). Simplify it.`,
          { cause: error },
        );
      throw error;
    } finally {
      this.context.text = '';
    }
  }
}
