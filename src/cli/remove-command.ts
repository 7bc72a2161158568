import { removeServerEntry } from '../config-files/edit-entry.js';
import { loadConfigFile } from '../config-files/load-config.js';
import { SwitchboardError } from '../core/errors.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { findServer, openSetup } from './configured-servers.js';

/**
 * `switchboard remove <name> [--user]`: deletes a server's entry from the file that holds it
 * (comments and the rest of the file kept), and whatever the store holds under that name (a
 * registration, or an on/off switch of the file entry), so nothing of it starts again.
 */
export const REMOVE_USAGE = `usage: switchboard remove <name> [--user]
  Removes a server: its entry in ./switchboard.json (or in the user's config, where it is
  defined there) and any registration or on/off switch the store holds for it. With --user,
  only the entry in ~/.switchboard/config.json is removed.`;

export async function removeCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, { user: { type: 'boolean', default: false } });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new UsageError('remove takes exactly one server name.');
  const view = await openSetup(ctx);
  const userPath = view.config.files.user.path;
  let file: string | undefined;
  let fromStore = false;
  try {
    if (values.user) {
      if (!(await removeServerEntry(userPath, name))) {
        throw new SwitchboardError('NOT_FOUND', `No server named "${name}" in ${userPath}.`, {
          details: { server: name, file: userPath },
        });
      }
      file = userPath;
    } else {
      const server = findServer(view, name);
      if (server.stored && view.store) fromStore = await view.store.servers.remove(name);
      if (server.file && (await removeServerEntry(server.file, name))) file = server.file;
    }
  } finally {
    await view.close();
  }
  // A project entry hid a user entry of the same name: that one is used from now on.
  const notes: string[] = [];
  if (file !== undefined && file !== userPath) {
    const user = await loadConfigFile(userPath);
    if (user.servers.some((s) => s.name === name))
      notes.push(`${userPath} still has "${name}", which is used from now on; "--user" removes it.`);
  }
  if (ctx.json) {
    ctx.out(JSON.stringify({ server: name, removed: { file: file ?? null, store: fromStore }, notes }));
  } else if (!ctx.quiet) {
    const places = [file, fromStore ? 'the store' : undefined].filter((p) => p !== undefined);
    ctx.err(`Removed "${name}" from ${places.join(' and ')}.`);
    for (const note of notes) ctx.err(`Note: ${note}`);
  }
  return EXIT.ok;
}
