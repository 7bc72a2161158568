import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logFileName } from '../host/logs/log-line.js';
import { lastLines, parseLogLine } from '../host/logs/log-parse.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { findServer, openSetup } from './configured-servers.js';
import { type FollowPosition, followLog, readWhole } from './log-follow.js';
import { printable, type Style, styleFor } from './output/style.js';

/**
 * `switchboard logs <server> [-f] [-n N]`: the server's log file (`host.logFile(name)`:
 * `logs/<name>.log` in the data dir), its last lines, and with `-f` what is appended after,
 * until Ctrl-C. Following polls the file's size on a fixed interval; a rotation (the file
 * renamed to `.log.1` past 5 MB) is noticed and the rest of the old file is read first.
 */
export const LOGS_USAGE = `usage: switchboard logs <server> [-f|--follow] [-n|--lines N]
  Prints the last N lines (default 50) of the server's log: its stderr, its own log
  messages and Switchboard's lifecycle notes. -f keeps printing new lines until Ctrl-C.
  With --json each line is a JSON object {"server","at","tag","text"}.`;

export async function logsCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    follow: { type: 'boolean', short: 'f', default: false },
    lines: { type: 'string', short: 'n', default: '50' },
  });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new UsageError('logs takes exactly one server name.');
  const count = Number(values.lines);
  if (!Number.isInteger(count) || count < 0)
    throw new UsageError(`--lines takes a whole number, not "${values.lines}".`);
  const file = join(ctx.dataDir, 'logs', logFileName(name));
  if (!existsSync(file)) {
    // No file: a server that exists but has not run yet, or a name that is wrong.
    const view = await openSetup(ctx);
    try {
      findServer(view, name);
    } finally {
      await view.close();
    }
    if (!ctx.json && !ctx.quiet)
      ctx.err(`No log for "${name}" yet (${file}); it is written while the server runs.`);
    if (!values.follow) return EXIT.ok;
  }
  const print = printer(ctx, name);
  const { lines, position } = await tail(file, count);
  for (const line of lines) print(line);
  if (values.follow) {
    // Ctrl-C ends following, and the command with exit 0: it is how a person stops it.
    const stop = new AbortController();
    const abort = () => stop.abort();
    process.once('SIGINT', abort);
    process.once('SIGTERM', abort);
    try {
      await followLog(file, position, {
        print,
        warn: (text) => ctx.err(`switchboard logs: ${text}`),
        signal: stop.signal,
      });
    } finally {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    }
  }
  return EXIT.ok;
}

/**
 * The last `count` lines, reaching into the rotated backup when the current file is short,
 * and how far the file was read (so a line written meanwhile is printed by `followLog`).
 */
async function tail(file: string, count: number): Promise<{ lines: string[]; position?: FollowPosition }> {
  const read = await readWhole(file);
  const current = lastLines(read?.text ?? '', count);
  const position = read?.position;
  if (current.length >= count) return { lines: current, ...(position && { position }) };
  const older = lastLines(await readFile(`${file}.1`, 'utf8').catch(() => ''), count - current.length);
  return { lines: [...older, ...current], ...(position && { position }) };
}

function printer(ctx: CliContext, server: string): (line: string) => void {
  if (ctx.json) return (line) => ctx.out(JSON.stringify({ server, ...parseLogLine(line) }));
  const style = styleFor(process.stdout, ctx.env);
  return (line) => ctx.out(colour(printable(line, { singleLine: true }), style));
}

function colour(line: string, style: Style): string {
  if (!style.color) return line;
  const { at, tag } = parseLogLine(line);
  if (at === undefined || tag === undefined) return line;
  const paint =
    tag === 'error' || tag === 'critical' || tag === 'alert' || tag === 'emergency'
      ? style.red
      : tag === 'warning'
        ? style.yellow
        : tag === 'lifecycle'
          ? style.cyan
          : (t: string) => t;
  return `${style.dim(at)} ${paint(`[${tag}]`)}${line.slice(at.length + tag.length + 3)}`;
}
