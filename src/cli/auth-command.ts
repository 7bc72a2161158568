import { createInterface } from 'node:readline';
import { loadConfig } from '../config-files/load-config.js';
import { loginServer } from '../host/auth/host-login.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { noSuchServer } from './configured-servers.js';
import { openCredentials } from './credential-store.js';

/**
 * `switchboard auth <server> [--no-browser] [--logout]`: logs a remote server in (OAuth) and
 * stores the tokens where every Switchboard process finds them. Only the config is read and
 * only the authorization server is contacted: no server is started.
 */
export const AUTH_USAGE = `usage: switchboard auth <server> [--no-browser] [--logout]
  Logs in to a server whose entry has "auth": { "type": "oauth" }: opens the browser (or
  prints the URL with --no-browser; paste the URL the browser ends on to finish on a headless
  machine) and stores the tokens. --logout forgets them.`;

export async function authCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    'no-browser': { type: 'boolean', default: false },
    logout: { type: 'boolean', default: false },
  });
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError('auth takes exactly one server name.');
  // Another entry's mistake does not stop a login; this entry's own is the error.
  const config = await loadConfig(
    { projectDir: ctx.projectDir, projectFile: ctx.projectFile, homeDir: ctx.homeDir },
    { invalidEntries: 'collect' },
  );
  const server = config.servers.find((s) => s.name === name);
  const invalid = config.invalid?.find((e) => e.name === name);
  if (invalid) throw invalid.error;
  if (!server) {
    // Logins are for config-file entries (their auth section), so only those are named.
    throw noSuchServer(name, { config, servers: config.servers }, { store: false });
  }
  const { credentials, close } = await openCredentials(ctx);
  try {
    if (values.logout) {
      const deleted = await credentials.delete(name);
      if (ctx.json) ctx.out(JSON.stringify({ server: name, loggedOut: true, deleted }));
      else if (!ctx.quiet) ctx.err(deleted > 0 ? `Logged out of ${name}.` : `No stored login for ${name}.`);
      return EXIT.ok;
    }
    const lines = createInterface({ input: ctx.stdin, terminal: false });
    try {
      await loginServer(server, credentials, ctx.env, {
        browser: !values['no-browser'],
        print: (line) => ctx.err(line),
        pasted: lines,
      });
    } finally {
      lines.close();
    }
  } finally {
    await close();
  }
  if (ctx.json) ctx.out(JSON.stringify({ server: name, loggedIn: true }));
  else if (!ctx.quiet)
    ctx.err(`Logged in to ${name}. Running Switchboard processes pick it up within seconds.`);
  return EXIT.ok;
}
