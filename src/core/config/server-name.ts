import { z } from 'zod';

/**
 * The one rule for server names, whichever way an entry arrives: a config file's key, an
 * import, the HTTP API, the JSON-lines `mcp_set`, an agent's `register_mcp`, `switchboard add`.
 * A name becomes part of file names (`logs/<name>.log`, `credentials/<name>/`), of URLs
 * (`/api/servers/<name>`), of tool names (`mcp__<name>__<tool>`, which LLM APIs cap at 64
 * characters) and of command lines (`switchboard enable <name>`), so it is held to what all of
 * those take without escaping:
 *
 * - at most 64 characters: a file name may have 255 bytes, a tool name 64 characters;
 * - letters, digits, `_`, `.` and `-` (ASCII): no path separators, no spaces or quotes, nothing
 *   a shell, a URL or a file system reads specially, and no look-alike Unicode;
 * - a letter or digit first: `-x` would read as an option, `.`/`..` as the current or parent
 *   folder (and `.x` as a hidden file), `__proto__` as the prototype of an object.
 */

export const SERVER_NAME_MAX_LENGTH = 64;
/** The whole rule as one expression (length included), for JSON Schema and quick checks. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The rule in words, for messages: what a valid name looks like. */
export const SERVER_NAME_RULE =
  'a server name has 1 to 64 characters: letters, digits, "_", "." and "-", starting with a letter or digit';

/** What is wrong with `name` as a server name (a sentence fragment), or undefined when it is valid. */
export function serverNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > SERVER_NAME_MAX_LENGTH)
    return `the name has ${name.length} characters, more than ${SERVER_NAME_MAX_LENGTH}`;
  if (!/^[A-Za-z0-9]/.test(name)) return `the name starts with ${describeChar(name[0]!)}`;
  const bad = /[^A-Za-z0-9_.-]/u.exec(name);
  if (bad) return `the name holds ${describeChar(bad[0])}`;
  return undefined;
}

/** Whether `name` follows the rule. */
export function isServerName(name: string): boolean {
  return serverNameProblem(name) === undefined;
}

/** The zod schema of a server name: the rule, with the problem and the rule as its message. */
export const serverNameSchema = z
  .string()
  .max(SERVER_NAME_MAX_LENGTH, { error: (issue) => nameMessage(issue.input) })
  .regex(SERVER_NAME_PATTERN, { error: (issue) => nameMessage(issue.input) })
  .describe(`The server's name: ${SERVER_NAME_RULE}.`);

function nameMessage(input: unknown): string {
  const problem = typeof input === 'string' ? serverNameProblem(input) : undefined;
  return `${problem ?? 'the name is not valid'}; ${SERVER_NAME_RULE}`;
}

/**
 * A name as messages quote it: whole when it is short, else its start and its length, so an
 * error about a name of a million characters stays one readable line.
 */
export function shownName(name: string): string {
  const plain = [...name].every((c) => !isControl(c));
  if (name.length <= SERVER_NAME_MAX_LENGTH + 16 && plain) return name;
  if (name.length <= SERVER_NAME_MAX_LENGTH + 16)
    return [...name].map((c) => (isControl(c) ? '?' : c)).join('');
  const start = [...name.slice(0, 40)].map((c) => (isControl(c) ? '?' : c)).join('');
  return `${start}… (${name.length} characters)`;
}

/** C0 controls and DEL: they would break a message's line or move the terminal's cursor. */
function isControl(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

function describeChar(char: string): string {
  const code = char.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (char === ' ') return 'a space';
  if (isControl(char)) return `a control character (${hex})`;
  if (code > 0x7e) return `the non-ASCII character "${char}" (${hex})`;
  return `"${char}"`;
}
