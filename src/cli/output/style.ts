/**
 * Colour for the CLI's human output, on only where a person reads it: the stream is a TTY
 * and `NO_COLOR` is unset or empty (https://no-color.org). `FORCE_COLOR` (any value but `0`)
 * turns it on regardless, for people who pipe into a pager that renders ANSI. `--json` output
 * never goes through a style.
 *
 * ```ts
 * const style = styleFor(process.stdout, ctx.env);
 * ctx.out(`${style.bold(name)} ${style.green('connected')}`);
 * ```
 */

/** A stream as far as colour detection cares: `process.stdout`, `process.stderr`, or a test double. */
export interface TerminalLike {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Text decorations; with colour off each returns its input unchanged. */
export interface Style {
  readonly color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** Whether output to `stream` should be coloured, given the environment. */
export function colorEnabled(
  stream: TerminalLike,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);
}

const identity = (text: string) => text;

const PLAIN: Style = {
  color: false,
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
};

const COLORED: Style = {
  color: true,
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
};

/** A style with colour on or off. */
export function createStyle(color: boolean): Style {
  return color ? COLORED : PLAIN;
}

/** The style for text written to `stream`. */
export function styleFor(stream: TerminalLike, env: Readonly<Record<string, string | undefined>>): Style {
  return createStyle(colorEnabled(stream, env));
}

// SGR sequences only: the style above emits nothing else, and server text is not trusted to
// carry escapes anyway (see `printable`).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched.
const ANSI_SGR = /\u001b\[[0-9;]*m/g;

/** The text without colour sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_SGR, '');
}

/** How many columns `text` takes on a terminal (colour sequences take none; wide characters are not measured). */
export function visibleLength(text: string): number {
  return [...stripAnsi(text)].length;
}

/**
 * Text from a server made safe to print on a terminal: control characters (escape sequences
 * that could move the cursor, retitle the window or hide text) are shown as `\uXXXX`; tabs
 * and, unless `singleLine`, newlines are kept.
 */
export function printable(text: string, options: { readonly singleLine?: boolean } = {}): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
  const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  const escaped = text
    .replace(/\r\n/g, '\n')
    .replace(control, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return options.singleLine ? escaped.replace(/\s*\n\s*/g, ' ').replace(/\t/g, ' ') : escaped;
}
