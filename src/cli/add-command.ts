import { userConfigPath } from '../config-files/load-config.js';
import { writeServerEntries } from '../config-files/write-entries.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { normalizeServerEntry, type RawServerEntryFields } from '../core/server-config.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openSetup, type SetupView } from './configured-servers.js';

/**
 * `switchboard add <name> -- <command> [args…]` and `switchboard add <name> <url>`: writes a
 * server entry into the project's `switchboard.json` (or the user's config with `--user`).
 * The entry is checked by the same normalizer the host uses before anything is written, and a
 * name already in that file is refused unless `--force`.
 */
export const ADD_USAGE = `usage: switchboard add <name> [--env K=V]… [--user] [--force] -- <command> [args…]
       switchboard add <name> <url> [--header K=V]… [--transport http|sse] [--user] [--force]
  Adds a local server (the program after --) or a remote one (its URL) to ./switchboard.json,
  or to ~/.switchboard/config.json with --user. Values may use \${VAR}, read when the server
  starts. A name already in that file is refused unless --force replaces it.
  Check the new entry with "switchboard doctor <name>".`;

/** What `add`'s arguments ask for: the entry to write and where. */
export interface AddRequest {
  readonly name: string;
  readonly fields: RawServerEntryFields;
  readonly user: boolean;
  readonly force: boolean;
}

/** Splits `K=V` (at the first `=`); `what` names the option in the error. */
export function parseKeyValue(text: string, what: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`${what} takes KEY=VALUE, not "${text}".`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function keyValues(values: readonly string[] | undefined, what: string): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  return Object.fromEntries(values.map((v) => parseKeyValue(v, what)));
}

/** Reads `add`'s arguments (pure): everything after `--` is the command and its arguments. */
export function parseAddArgs(args: readonly string[]): AddRequest {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? undefined : args.slice(split + 1);
  const { values, positionals } = parseVerbArgs(own, {
    env: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    transport: { type: 'string' },
    user: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
  });
  const [name, url, ...extra] = positionals;
  if (name === undefined) throw new UsageError('add needs a server name.');
  const env = keyValues(values.env, '--env');
  const headers = keyValues(values.header, '--header');
  let fields: RawServerEntryFields;
  if (command !== undefined) {
    if (url !== undefined)
      throw new UsageError(`Give either a URL or a command after --, not both ("${url}").`);
    const [program, ...programArgs] = command;
    if (program === undefined) throw new UsageError('Nothing follows --: give the command to run.');
    if (headers) throw new UsageError('--header is for a remote server (a URL); a command gets --env.');
    if (values.transport !== undefined && values.transport !== 'stdio')
      throw new UsageError('A command runs over stdio; --transport is for a URL (http or sse).');
    fields = { command: program, ...(programArgs.length > 0 && { args: programArgs }), ...(env && { env }) };
  } else {
    if (url === undefined)
      throw new UsageError('add needs a URL, or a command after --: switchboard add fs -- npx -y <package>.');
    if (extra.length > 0)
      throw new UsageError(
        `To add a command, put it after --: switchboard add ${name} -- ${[url, ...extra].join(' ')}`,
      );
    if (env) throw new UsageError('--env is for a command; a remote server gets --header.');
    const transport = values.transport;
    if (transport !== undefined && transport !== 'http' && transport !== 'sse')
      throw new UsageError(`--transport takes http or sse, not "${transport}".`);
    fields = { url, ...(transport && { transport }), ...(headers && { headers }) };
  }
  return { name, fields, user: values.user, force: values.force };
}

export async function addCommand(ctx: CliContext): Promise<ExitCode> {
  const request = parseAddArgs(ctx.args);
  const { name, fields } = request;
  const file = request.user ? userConfigPath(ctx.homeDir) : ctx.projectFile;
  // The host's own check, so a refused entry never reaches the file.
  normalizeServerEntry({ name, ...fields }, { file });
  const view = await openSetup(ctx);
  let notes: string[];
  try {
    notes = shadowNotes(view, request.user, name);
  } finally {
    await view.close();
  }
  // Whether the name is taken is decided under the file's lock: two adds of one name at once
  // cannot both think it free.
  const result = await writeServerEntries(file, [{ name, ...fields }], {
    existing: request.force ? 'replace' : 'refuse',
  }).catch((error: unknown) => {
    if (isSwitchboardError(error, 'INVALID_ARGUMENT') && error.details.reason === 'exists') {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `"${name}" is already in ${file}. Pass --force to replace it, or choose another name.`,
        { cause: error, details: { server: name, file } },
      );
    }
    throw error;
  });
  const action = result.updated.includes(name) ? 'replaced' : 'added';
  if (ctx.json) {
    ctx.out(JSON.stringify({ server: name, action, file, entry: fields, notes }));
    return EXIT.ok;
  }
  if (!ctx.quiet) {
    const what =
      fields.command !== undefined ? [fields.command, ...(fields.args ?? [])].join(' ') : fields.url;
    ctx.err(`${action === 'added' ? `Added "${name}" to` : `Replaced "${name}" in`} ${file}: ${what}`);
    for (const note of notes) ctx.err(`Note: ${note}`);
    ctx.err(`Check it with: switchboard doctor ${name}`);
  }
  return EXIT.ok;
}

/** What else decides which entry of this name the host uses: a registration, or the other file. */
function shadowNotes(view: SetupView, user: boolean, name: string): string[] {
  const notes: string[] = [];
  const existing = view.servers.find((s) => s.name === name);
  if (existing?.stored && existing.stored.source !== 'toggle') {
    notes.push(
      `a server registered at run time (${existing.stored.source}) is also called "${name}" and is used ` +
        'instead of config file entries while it stays registered.',
    );
  }
  if (existing?.stored?.source === 'toggle') {
    notes.push(
      `the store holds an earlier on/off switch of "${name}" with a copy of its old entry, which the host ` +
        `uses instead; "switchboard ${existing.stored.enabled ? 'enable' : 'disable'} ${name}" clears it.`,
    );
  }
  if (user && view.config.sources[name] === view.config.files.project.path) {
    notes.push(
      `${view.config.files.project.path} also has "${name}"; in this project its entry is the one used.`,
    );
  }
  if (!user && view.config.sources[name] === view.config.files.user.path) {
    notes.push(`this replaces the user config's "${name}" in this project.`);
  }
  return notes;
}
