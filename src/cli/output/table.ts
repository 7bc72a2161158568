import { stripAnsi, visibleLength } from './style.js';

/**
 * Plain column tables for the CLI's human output: columns padded to their widest cell (colour
 * sequences do not count), separated by two spaces, no borders, so the output reads well and
 * still splits on whitespace. The last column may be cut to fit the terminal.
 *
 * ```ts
 * for (const line of renderTable([['NAME', 'STATE'], ['fs', 'connected']], { maxWidth: 80 }))
 *   ctx.out(line);
 * ```
 */
export interface TableOptions {
  /** Per column; default `left`. Right-align numbers. */
  readonly align?: readonly ('left' | 'right')[];
  /** Spaces before every line. Default 0. */
  readonly indent?: number;
  /**
   * The widest a line may be (the terminal's columns): the last column is cut with `…` to fit,
   * but kept at least 10 columns wide. Default: no limit.
   */
  readonly maxWidth?: number;
}

const GAP = '  ';
const MIN_LAST = 10;

/** The rows as lines; rows with fewer cells get empty ones. Trailing spaces are trimmed. */
export function renderTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(0, ...rows.map((r) => visibleLength(r[c] ?? ''))),
  );
  const indent = options.indent ?? 0;
  const before = indent + widths.slice(0, -1).reduce((sum, w) => sum + w + GAP.length, 0);
  const lastWidth =
    options.maxWidth === undefined ? Number.POSITIVE_INFINITY : Math.max(MIN_LAST, options.maxWidth - before);
  return rows.map((row) => {
    const cells = Array.from({ length: columns }, (_, c) => {
      const last = c === columns - 1;
      const cell = last ? truncate(row[c] ?? '', lastWidth) : (row[c] ?? '');
      const pad = ' '.repeat(Math.max(0, widths[c]! - visibleLength(cell)));
      return options.align?.[c] === 'right' ? pad + cell : cell + pad;
    });
    return (' '.repeat(indent) + cells.join(GAP)).trimEnd();
  });
}

/** `text` cut to `width` columns with a trailing `…`; its colour is dropped when it is cut. */
export function truncate(text: string, width: number): string {
  if (visibleLength(text) <= width) return text;
  if (width < 1) return '';
  return `${[...stripAnsi(text)].slice(0, width - 1).join('')}…`;
}
