/**
 * `systemd`: a unit's status, the units (filtered), a unit's journal, and start / stop /
 * restart / reload / enable / disable. Reading runs as the login user (or through sudo when
 * asked, for journals only root may read); changing always runs through sudo in the alias's
 * sudo mode (run-command.ts: `none` refuses, `nopasswd`, `prompt` asks for the password) —
 * except for a root login, which needs none. Command lines: systemd-commands.ts.
 */
import type { Answers } from './asks.js';
import type { ExecResult, SshConnection } from './connection.js';
import { SshError } from './errors.js';
import { runCommand } from './run-command.js';
import type { Sessions, Target } from './sessions.js';
import {
  CHANGING,
  changeCommand,
  ifPresent,
  journalCommand,
  listCommand,
  type PRIORITIES,
  parseShow,
  parseUnits,
  type SystemdAction,
  showCommand,
  type UNIT_STATES,
  type UNIT_TYPES,
} from './systemd-commands.js';

/** What the tool is asked to do. */
export interface SystemdRequest {
  readonly action: SystemdAction;
  readonly unit: string | undefined;
  readonly pattern: string | undefined;
  readonly type: (typeof UNIT_TYPES)[number];
  readonly state: (typeof UNIT_STATES)[number] | undefined;
  readonly lines: number;
  readonly since: string | undefined;
  readonly priority: (typeof PRIORITIES)[number] | undefined;
  readonly sudo: boolean;
  readonly timeoutMs: number;
}

const NOT_FOUND_EXIT = 127;
const MAX_UNITS = 500;
const STATUS_JOURNAL_LINES = 10;

function firstLines(text: string, count: number): string {
  return text.trim().split('\n').slice(0, count).join(' / ');
}

/** Runs the request on the target; returns the text and the same facts as data. */
export async function runSystemd(
  sessions: Sessions,
  target: Target,
  connection: SshConnection,
  request: SystemdRequest,
  answers: Answers,
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const root = target.alias.user === 'root';
  const run = async (
    program: 'systemctl' | 'journalctl',
    line: string,
    sudo: boolean,
  ): Promise<ExecResult> => {
    const result = await runCommand(
      sessions,
      target,
      connection,
      {
        command: ifPresent(program, line),
        sudo: sudo && !root,
        sudoUser: 'root',
        stdin: undefined,
        timeoutMs: request.timeoutMs,
      },
      answers,
    );
    if (result.timedOut)
      throw new SshError(
        'TIMEOUT',
        `${program} did not finish in ${request.timeoutMs / 1000} s on ${target.label}; nothing more is known.`,
      );
    if (result.exitCode === NOT_FOUND_EXIT)
      throw new SshError(
        'NOT_SUPPORTED',
        `${target.label} has no ${program} on its PATH: it does not run systemd. Use exec with its own service tool (service, rc-service, launchctl).`,
      );
    return result;
  };
  const failed = (what: string, result: ExecResult) =>
    new SshError(
      'COMMAND_FAILED',
      `${what} failed on ${target.label} (exit ${result.exitCode ?? result.signal}): ${firstLines(result.stderr || result.stdout, 5) || 'no output'}.` +
        (request.unit ? ' See action "journal" for the unit\'s log.' : ''),
    );
  const unit = () => {
    if (request.unit === undefined)
      throw new SshError(
        'INVALID_ARGUMENT',
        `action "${request.action}" needs a unit (e.g. "nginx.service").`,
      );
    return request.unit;
  };

  if (request.action === 'list') {
    const result = await run('systemctl', listCommand(request), request.sudo);
    if (result.exitCode !== 0) throw failed('systemctl list-units', result);
    const rows = parseUnits(result.stdout);
    const shown = rows.slice(0, MAX_UNITS);
    const width = Math.max(0, ...shown.map((r) => r.unit.length));
    const lines = shown.map(
      (r) => `${r.unit.padEnd(width)}  ${`${r.active}/${r.sub}`.padEnd(18)}  ${r.description}`,
    );
    const head = `${rows.length} unit${rows.length === 1 ? '' : 's'}${request.type === 'all' ? '' : ` of type ${request.type}`}${request.state ? `, state ${request.state}` : ''}${request.pattern ? `, matching ${request.pattern}` : ''} (unit, active/sub, description)`;
    const more =
      rows.length > MAX_UNITS
        ? [`[${rows.length - MAX_UNITS} more not shown; narrow with pattern or state]`]
        : [];
    return { text: [head, ...lines, ...more].join('\n'), structured: { units: shown, total: rows.length } };
  }

  if (request.action === 'journal') {
    const line = journalCommand({
      unit: unit(),
      lines: request.lines,
      ...(request.since && { since: request.since }),
      ...(request.priority && { priority: request.priority }),
    });
    const result = await run('journalctl', line, request.sudo);
    if (result.exitCode !== 0) throw failed('journalctl', result);
    const text = result.stdout.trim() || '-- No entries --';
    const hint = request.sudo
      ? ''
      : '\n[as the login user: journals it may not read are left out; sudo=true reads them all]';
    return {
      text: `${text}${hint}`,
      structured: { unit: request.unit, lines: result.stdout.trim().split('\n').filter(Boolean) },
    };
  }

  const name = unit();
  let changed: string | undefined;
  if (CHANGING.has(request.action)) {
    const result = await run('systemctl', changeCommand(request.action, name), true);
    if (result.exitCode !== 0) throw failed(`systemctl ${request.action} ${name}`, result);
    changed = `${request.action} ${name}: done.`;
  }
  const shown = await run('systemctl', showCommand(name), request.sudo);
  if (shown.exitCode !== 0) throw failed(`systemctl show ${name}`, shown);
  const props = parseShow(shown.stdout);
  if (props.LoadState === 'not-found')
    throw new SshError(
      'NOT_FOUND',
      `There is no unit ${name} on ${target.label}; see action "list" for the units there.`,
    );
  const lines = [
    ...(changed ? [changed] : []),
    `${props.Id ?? name}${props.Description ? ` — ${props.Description}` : ''}`,
    `state    ${props.ActiveState ?? '?'} (${props.SubState ?? '?'})${props.ActiveEnterTimestamp ? ` since ${props.ActiveEnterTimestamp}` : ''}${props.MainPID && props.MainPID !== '0' ? ` · main PID ${props.MainPID}` : ''}`,
    `file     ${props.UnitFileState || '?'}${props.FragmentPath ? ` · ${props.FragmentPath}` : ''}`,
    `result   ${props.Result ?? '?'}${props.NRestarts ? ` · restarts ${props.NRestarts}` : ''}${props.MemoryCurrent && /^\d+$/.test(props.MemoryCurrent) ? ` · memory ${(Number(props.MemoryCurrent) / 1024 ** 2).toFixed(1)} MiB` : ''}`,
  ];
  if (request.action === 'status') {
    const journal = await run(
      'journalctl',
      journalCommand({ unit: name, lines: STATUS_JOURNAL_LINES }),
      request.sudo,
    ).catch((error: unknown) => error as Error);
    if (journal instanceof Error) lines.push(`[journal not available: ${journal.message}]`);
    else if (journal.exitCode === 0 && journal.stdout.trim() !== '')
      lines.push(`--- journal (last ${STATUS_JOURNAL_LINES} lines) ---`, journal.stdout.trim());
  }
  return {
    text: lines.join('\n'),
    structured: { unit: name, ...(changed && { done: request.action }), properties: props },
  };
}
