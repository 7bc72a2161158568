/**
 * The command lines of the `systemd` tool, built in one place from checked arguments: each
 * argument is one shell-quoted word (command-line.ts), and arguments are also checked against
 * what systemd itself accepts — a unit name is systemd's characters only, never an option
 * (`-…`) — so a hostile name is refused with a clear message before anything runs, and one
 * that passes reaches systemctl as exactly one argument. Output parsing is here too. Pure.
 */
import { shellQuote } from './command-line.js';
import { SshError } from './errors.js';

/** What the tool can do. The last six change state and run through sudo. */
export const SYSTEMD_ACTIONS = [
  'status',
  'list',
  'journal',
  'start',
  'stop',
  'restart',
  'reload',
  'enable',
  'disable',
] as const;
export type SystemdAction = (typeof SYSTEMD_ACTIONS)[number];

/** Actions that change a unit: run through sudo in the alias's sudo mode. */
export const CHANGING: ReadonlySet<SystemdAction> = new Set([
  'start',
  'stop',
  'restart',
  'reload',
  'enable',
  'disable',
]);

export const UNIT_TYPES = ['service', 'timer', 'socket', 'mount', 'target', 'path', 'all'] as const;
export const UNIT_STATES = ['active', 'inactive', 'failed', 'running'] as const;
export const PRIORITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

// systemd's unit name characters (src/basic/unit-name.c, VALID_CHARS plus "@" for templates),
// at most 255 of them (UNIT_NAME_MAX); "\" appears in escaped names such as "dev-disk-by\x2dlabel".
const UNIT_NAME = /^[A-Za-z0-9:_.@\\-]{1,255}$/;
const UNIT_PATTERN = /^[A-Za-z0-9:_.@\\*?[\]!-]{1,255}$/;
// journalctl --since takes "2024-05-01 10:00", "yesterday", "-1h", "1 hour ago", …
const SINCE = /^[A-Za-z0-9 :+.-]{1,64}$/;

function refuse(what: string, value: string, rule: string): never {
  throw new SshError('INVALID_ARGUMENT', `${JSON.stringify(value)} is not a valid ${what}: ${rule}`);
}

/** A unit name as systemd accepts it ("nginx", "nginx.service", "getty@tty1.service"). */
export function checkUnitName(name: string): string {
  if (!UNIT_NAME.test(name) || name.startsWith('-') || name.startsWith('.'))
    refuse(
      'unit name',
      name,
      'use letters, digits and ":", "_", ".", "@", "\\", "-" (not first), up to 255, e.g. "nginx.service". See action "list" for the names.',
    );
  return name;
}

/** A unit pattern for list ("nginx*", "*.timer"): a unit name with glob characters. */
export function checkUnitPattern(pattern: string): string {
  if (!UNIT_PATTERN.test(pattern) || pattern.startsWith('-'))
    refuse(
      'unit pattern',
      pattern,
      'use unit name characters and the globs "*", "?", "[...]", e.g. "nginx*".',
    );
  return pattern;
}

/** A journalctl --since value. */
export function checkSince(since: string): string {
  if (!SINCE.test(since))
    refuse(
      'since',
      since,
      'use a time such as "2024-05-01 10:00", "today", "yesterday", "-1h" or "30 min ago".',
    );
  return since;
}

/** The words as one POSIX shell command line, each quoted. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/** Runs `line` if `program` is on the PATH, else exits 127 ("not found"), so the tool can say so. */
export function ifPresent(program: 'systemctl' | 'journalctl', line: string): string {
  return `command -v ${program} >/dev/null 2>&1 || exit 127; ${line}`;
}

/** The properties `status` shows. */
export const STATUS_PROPERTIES = [
  'Id',
  'Description',
  'LoadState',
  'ActiveState',
  'SubState',
  'UnitFileState',
  'MainPID',
  'ActiveEnterTimestamp',
  'Result',
  'NRestarts',
  'MemoryCurrent',
  'FragmentPath',
] as const;

export function showCommand(unit: string): string {
  return commandLine([
    'systemctl',
    'show',
    '--no-pager',
    `--property=${STATUS_PROPERTIES.join(',')}`,
    '--',
    checkUnitName(unit),
  ]);
}

export function listCommand(options: {
  type: (typeof UNIT_TYPES)[number];
  state?: (typeof UNIT_STATES)[number];
  pattern?: string;
}): string {
  return commandLine([
    'systemctl',
    'list-units',
    '--no-pager',
    '--no-legend',
    '--plain',
    '--all',
    ...(options.type === 'all' ? [] : [`--type=${options.type}`]),
    ...(options.state ? [`--state=${options.state}`] : []),
    ...(options.pattern ? ['--', checkUnitPattern(options.pattern)] : []),
  ]);
}

export function journalCommand(options: {
  unit: string;
  lines: number;
  since?: string;
  priority?: (typeof PRIORITIES)[number];
}): string {
  if (!Number.isInteger(options.lines) || options.lines < 1)
    throw new SshError('INVALID_ARGUMENT', 'lines must be a whole number from 1.');
  return commandLine([
    'journalctl',
    '--no-pager',
    '--output=short-iso',
    `--lines=${options.lines}`,
    `--unit=${checkUnitName(options.unit)}`,
    ...(options.since ? [`--since=${checkSince(options.since)}`] : []),
    ...(options.priority ? [`--priority=${options.priority}`] : []),
  ]);
}

/** `systemctl ACTION -- UNIT` for a changing action. */
export function changeCommand(action: SystemdAction, unit: string): string {
  if (!CHANGING.has(action)) throw new SshError('INVALID_ARGUMENT', `${action} does not change a unit.`);
  return commandLine(['systemctl', action, '--', checkUnitName(unit)]);
}

/** `systemctl show` output (`Key=value` lines) as a record. */
export function parseShow(output: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return values;
}

/** One row of `systemctl list-units --plain --no-legend`. */
export interface UnitRow {
  readonly unit: string;
  readonly load: string;
  readonly active: string;
  readonly sub: string;
  readonly description: string;
}

export function parseUnits(output: string): UnitRow[] {
  const rows: UnitRow[] = [];
  for (const raw of output.split('\n')) {
    // Older systemd marks failed units with "●" (or "*") even in plain output.
    const line = raw.replace(/^\s*[●*]\s*/, '').trim();
    const fields = line.split(/\s+/);
    if (fields.length < 4) continue;
    const [unit, load, active, sub] = fields as [string, string, string, string];
    rows.push({ unit, load, active, sub, description: fields.slice(4).join(' ') });
  }
  return rows;
}
