#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeError, isSwitchboardError } from '../core/errors.js';
import { EXIT, type ExitCode, exitCodeOf, lazy, UsageError, type Verb } from './cli-context.js';
import { resolveDataDir } from './data-dir.js';
import { HOST_VERBS } from './host-verbs.js';
import { MANAGE_VERBS } from './manage-verbs.js';
import { READ_VERBS } from './read-verbs.js';
import { REPLAY_VERBS } from './replay-verbs.js';

/**
 * The `switchboard` command: global options, then one verb, each in its own
 * `<verb>-command.ts`. Nothing imports the CLI. Exit codes: 0 ok, 1 the tool returned an
 * error, 2 usage error, 3 connection or auth failure, 4 denied by policy.
 */

const VERBS: Readonly<Record<string, Verb>> = {
  ...READ_VERBS,
  ...MANAGE_VERBS,
  auth: lazy(
    () => import('./auth-command.js'),
    (m) => ({ run: m.authCommand, usage: m.AUTH_USAGE }),
  ),
  serve: lazy(
    () => import('./serve-command.js'),
    (m) => ({ run: m.serveCommand, usage: m.SERVE_USAGE }),
  ),
  ...HOST_VERBS,
  ...REPLAY_VERBS,
};

const USAGE = `usage: switchboard [--config DIR] [--data-dir DIR] [--json] [--quiet] [--verbose] <verb> …
verbs: ${Object.keys(VERBS).join(', ')}
Run "switchboard <verb> --help" for a verb's options.`;

interface Globals {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  projectDir: string;
  dataDir?: string;
}

/** Splits the global options (before the verb) from the verb and its own arguments. */
function splitArgs(argv: readonly string[]): { globals: Globals; verb?: string; rest: string[] } {
  const globals: Globals = { json: false, quiet: false, verbose: false, projectDir: process.cwd() };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') globals.json = true;
    else if (arg === '--quiet' || arg === '-q') globals.quiet = true;
    else if (arg === '--verbose' || arg === '-v') globals.verbose = true;
    else if (arg === '--config' || arg === '--data-dir') {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a directory.`);
      if (arg === '--config') globals.projectDir = resolve(value);
      else globals.dataDir = resolve(value);
    } else if (arg.startsWith('-')) throw new UsageError(`Unknown option ${arg}.`);
    else break;
  }
  const verb = argv[i];
  return { globals, ...(verb !== undefined && { verb }), rest: argv.slice(i + 1) };
}

export async function main(
  argv: readonly string[],
  io: { out(line: string): void; err(line: string): void; stdin: NodeJS.ReadableStream } = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    stdin: process.stdin,
  },
): Promise<ExitCode> {
  let json = false;
  try {
    const { globals, verb, rest } = splitArgs(argv);
    json = globals.json;
    if (verb === undefined || verb === 'help' || verb === '--help') {
      io.err(USAGE);
      return verb === undefined ? EXIT.usage : EXIT.ok;
    }
    const known = VERBS[verb];
    if (!known) throw new UsageError(`Unknown verb "${verb}".`);
    const command = await known.load();
    // `--help` of the verb itself, not one meant for a command after `--` (add x -- tool --help).
    const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (own.includes('--help') || own.includes('-h')) {
      io.err(command.usage);
      return EXIT.ok;
    }
    const homeDir = homedir();
    const data = resolveDataDir({ flag: globals.dataDir, projectDir: globals.projectDir, homeDir });
    return await command.run({
      args: rest,
      json: globals.json,
      quiet: globals.quiet,
      verbose: globals.verbose,
      projectDir: globals.projectDir,
      homeDir,
      dataDir: data.dir,
      dataDirFrom: data.from,
      env: process.env,
      stdin: io.stdin,
      out: io.out,
      err: io.err,
    });
  } catch (error) {
    const code = exitCodeOf(error);
    if (json) {
      io.out(
        JSON.stringify({
          error: {
            code: isSwitchboardError(error) ? error.code : code === EXIT.usage ? 'USAGE' : 'ERROR',
            message: describeError(error),
          },
        }),
      );
    } else {
      io.err(`switchboard: ${describeError(error)}`);
      if (error instanceof UsageError) io.err(USAGE);
    }
    return code;
  }
}

// Run when executed directly (not when imported by a test); npm's bin link is a symlink.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
