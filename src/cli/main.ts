#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeError, isSwitchboardError } from '../core/errors.js';
import { EXIT, type ExitCode, exitCodeOf, UsageError, type Verb } from './cli-context.js';
import { configLocation } from './config-location.js';
import { resolveDataDir } from './data-dir.js';
import { didYouMean } from './help/suggest.js';
import { GLOBAL_OPTIONS, globalUsage, USAGE_LINE, type VerbGroup, verbUsage } from './help/usage-text.js';
import { HOST_VERBS } from './host-verbs.js';
import { MANAGE_VERBS } from './manage-verbs.js';
import { READ_VERBS } from './read-verbs.js';
import { REPLAY_VERBS } from './replay-verbs.js';

/**
 * The `switchboard` command: global options, then one verb, each in its own
 * `<verb>-command.ts`. Nothing imports the CLI. Exit codes: 0 ok, 1 the tool returned an
 * error, 2 usage error, 3 connection or auth failure, 4 denied by policy.
 *
 * This module loads only what every start needs (the verb tables, the help texts, the error
 * type): a verb's module, and the host, store and SDK behind it, are imported when the verb
 * runs, so `--help` and the verbs that need none of it start about as fast as Node itself.
 */

const GROUPS: readonly VerbGroup[] = [
  { title: 'Look at servers and use them', verbs: READ_VERBS },
  { title: 'Change and inspect the setup', verbs: MANAGE_VERBS },
  { title: 'Run Switchboard', verbs: HOST_VERBS },
  { title: 'Record and replay a server', verbs: REPLAY_VERBS },
];

const VERBS: Readonly<Record<string, Verb>> = {
  ...READ_VERBS,
  ...MANAGE_VERBS,
  ...HOST_VERBS,
  ...REPLAY_VERBS,
};

interface Globals {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  help: boolean;
  version: boolean;
  local: boolean;
  config?: string;
  dataDir?: string;
}

/** Splits the global options (before the verb) from the verb and its own arguments. */
function splitArgs(argv: readonly string[]): { globals: Globals; verb?: string; rest: string[] } {
  const globals: Globals = {
    json: false,
    quiet: false,
    verbose: false,
    help: false,
    version: false,
    local: false,
  };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') globals.json = true;
    else if (arg === '--quiet' || arg === '-q') globals.quiet = true;
    else if (arg === '--verbose' || arg === '-v') globals.verbose = true;
    else if (arg === '--help' || arg === '-h') globals.help = true;
    else if (arg === '--version' || arg === '-V') globals.version = true;
    else if (arg === '--local') globals.local = true;
    else if (arg === '--config' || arg === '--data-dir') {
      const value = argv[++i];
      if (value === undefined)
        throw new UsageError(`${arg} needs a ${arg === '--config' ? 'directory or file' : 'directory'}.`);
      if (arg === '--config') globals.config = value;
      else globals.dataDir = resolve(value);
    } else if (arg.startsWith('-')) {
      const names = GLOBAL_OPTIONS.flatMap((o) => o.names);
      const hint = didYouMean(arg, names) || ' Options of a verb go after it.';
      throw new UsageError(`Unknown option ${arg}.${hint}`);
    } else break;
  }
  const verb = argv[i];
  return { globals, ...(verb !== undefined && { verb }), rest: argv.slice(i + 1) };
}

/** The verb called `name`, or a usage error that suggests the nearest ones. */
function verbNamed(name: string): Verb {
  const verb = Object.hasOwn(VERBS, name) ? VERBS[name] : undefined;
  if (verb) return verb;
  throw new UsageError(
    `Unknown verb "${name}".${didYouMean(name, Object.keys(VERBS))} "switchboard --help" lists them.`,
  );
}

/** The package's version, from the package.json two levels up (src/cli or dist/cli). */
function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
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
  let current: string | undefined;
  try {
    const { globals, verb, rest } = splitArgs(argv);
    json = globals.json;
    if (globals.version) {
      io.out(`switchboard ${version()}`);
      return EXIT.ok;
    }
    // Asked for, help goes to stdout (to page or grep); after a mistake, to stderr.
    if (globals.help || verb === 'help') {
      const topic = verb === 'help' ? rest[0] : verb;
      if (topic === undefined) io.out(globalUsage(GROUPS));
      else io.out(verbUsage(verbNamed(topic), (await verbNamed(topic).load()).usage));
      return EXIT.ok;
    }
    if (verb === undefined) {
      io.err(globalUsage(GROUPS));
      return EXIT.usage;
    }
    const known = verbNamed(verb);
    current = verb;
    const command = await known.load();
    // `--help` of the verb itself, not one meant for a command after `--` (add x -- tool --help).
    const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (own.includes('--help') || own.includes('-h')) {
      io.out(verbUsage(known, command.usage));
      return EXIT.ok;
    }
    const homeDir = homedir();
    const location = configLocation(globals.config, process.cwd());
    const data = resolveDataDir({ flag: globals.dataDir, projectDir: location.projectDir, homeDir });
    return await command.run({
      args: rest,
      json: globals.json,
      quiet: globals.quiet,
      verbose: globals.verbose,
      local: globals.local,
      projectDir: location.projectDir,
      projectFile: location.projectFile,
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
      if (error instanceof UsageError)
        io.err(
          current === undefined
            ? `${USAGE_LINE}; "switchboard --help" lists the verbs.`
            : `Run "switchboard help ${current}" for its options and examples.`,
        );
    }
    return code;
  }
}

// Run when executed directly (not when imported by a test); npm's bin link is a symlink.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
