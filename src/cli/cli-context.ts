import { homedir } from 'node:os';
import { join } from 'node:path';
import { isSwitchboardError, type SwitchboardErrorCode } from '../core/errors.js';

/**
 * What every verb gets: its arguments, the global options, and where to write. Output goes
 * through `out` (results, stdout) and `err` (messages, progress, stderr), so tests and the
 * JSON mode see exactly what a person would.
 */
export interface CliContext {
  readonly args: readonly string[];
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** `--local`: start the servers here even when a gateway runs on the data dir (running-gateway.ts). */
  readonly local: boolean;
  /** Where `switchboard.json` is looked for (`--config DIR`, or the directory of `--config FILE`). */
  readonly projectDir: string;
  /** The project's config file: `<projectDir>/switchboard.json`, or the file `--config` named. */
  readonly projectFile: string;
  readonly homeDir: string;
  readonly dataDir: string;
  /** How `dataDir` was chosen (data-dir.ts); absent means the flag's or the caller's own. */
  readonly dataDirFrom?: 'flag' | 'project' | 'home';
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: NodeJS.ReadableStream;
  out(line: string): void;
  err(line: string): void;
}

/** Exit codes, documented in the README: what a script can branch on. */
export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  connection: 3,
  denied: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What a verb's module gives: the command and its usage text. */
export type VerbModule = { readonly run: (ctx: CliContext) => Promise<ExitCode>; readonly usage: string };

/**
 * What the global usage and `help <verb>` show of a verb without loading its module: one line
 * of what it does, and 1–3 command lines to copy.
 */
export interface VerbHelp {
  readonly summary: string;
  readonly examples: readonly string[];
}

/**
 * A verb, loaded when it is used: a CLI start reads only the modules of the verb it runs (and
 * their dependencies), not those of every verb — the gateway, the SDK server, the store.
 */
export type Verb = VerbHelp & { readonly load: () => Promise<VerbModule> };

/** A verb whose module is imported on first use; `pick` takes its command and usage out of it. */
export function lazy<M>(help: VerbHelp, importer: () => Promise<M>, pick: (module: M) => VerbModule): Verb {
  return { ...help, load: async () => pick(await importer()) };
}

/** A usage mistake: exit 2 with the message and the verb's usage. */
export class UsageError extends Error {}

/** The default data dir: `~/.switchboard`. */
export function defaultDataDir(homeDir: string = homedir()): string {
  return join(homeDir, '.switchboard');
}

const CONNECTION_CODES: readonly SwitchboardErrorCode[] = [
  'CONNECT_FAILED',
  'CONNECT_TIMEOUT',
  'SPAWN_FAILED',
  'SANDBOX_UNAVAILABLE',
  'UPSTREAM_DISCONNECTED',
  'UPSTREAM_HTTP',
  'NOT_CONNECTED',
  'MCP_OFF',
  'AUTH_REQUIRED',
  'AUTH_FAILED',
  'REQUEST_TIMEOUT',
];

/** The exit code for an error a verb let through. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  // node:util parseArgs: an unknown option, a missing value, a stray positional.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return EXIT.usage;
  if (isSwitchboardError(error)) {
    if (error.code === 'POLICY_DENIED' || error.code === 'APPROVAL_DECLINED') return EXIT.denied;
    if (CONNECTION_CODES.includes(error.code)) return EXIT.connection;
    if (error.code === 'CONFIG_INVALID' || error.code === 'NOT_FOUND' || error.code === 'INVALID_ARGUMENT')
      return EXIT.usage;
  }
  return EXIT.toolError;
}
