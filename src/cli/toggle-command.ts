import { setServerEnabled } from '../config-files/edit-entry.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { findServer, openSetup } from './configured-servers.js';

/**
 * `switchboard enable <name>` and `switchboard disable <name>`: whether a server starts, kept
 * where its entry lives. A config-file entry gets `"enabled": false` (or loses it) in its
 * file, and any on/off switch the store held for it (the host's `setEnabled` on a file entry,
 * from the dashboard or an agent) is dropped, because the host would start the store's copy
 * of the entry instead of the file's. A server registered at run time is switched in the store.
 */
export const ENABLE_USAGE = `usage: switchboard enable <name>
  Lets a disabled server start again: removes "enabled": false from its entry (or switches a
  registered server on in the store). Running Switchboard processes apply it when restarted.`;

export const DISABLE_USAGE = `usage: switchboard disable <name>
  Keeps a server's entry but stops it from starting: writes "enabled": false into the file
  that holds it (or switches a registered server off in the store). Running Switchboard
  processes apply it when restarted.`;

export function enableCommand(ctx: CliContext): Promise<ExitCode> {
  return toggle(ctx, true);
}

export function disableCommand(ctx: CliContext): Promise<ExitCode> {
  return toggle(ctx, false);
}

async function toggle(ctx: CliContext, enabled: boolean): Promise<ExitCode> {
  const verb = enabled ? 'enable' : 'disable';
  const { positionals } = parseVerbArgs(ctx.args, {});
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new UsageError(`${verb} takes exactly one server name.`);
  const view = await openSetup(ctx);
  let where: { kind: 'file'; file: string } | { kind: 'store' };
  let changed: boolean;
  try {
    const server = findServer(view, name);
    changed = server.enabled !== enabled;
    const stored = server.stored;
    if (stored && view.store && (stored.source !== 'toggle' || server.file === undefined)) {
      // A registration (or a switch whose file entry is gone, which the host starts all the same).
      await view.store.servers.setEnabled(name, enabled);
      where = { kind: 'store' };
    } else {
      const file = server.file!;
      await setServerEnabled(file, name, enabled);
      if (stored && view.store) await view.store.servers.remove(name);
      where = { kind: 'file', file };
    }
  } finally {
    await view.close();
  }
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        server: name,
        enabled,
        changed,
        where: where.kind,
        ...(where.kind === 'file' && { file: where.file }),
      }),
    );
  } else if (!ctx.quiet) {
    const place = where.kind === 'file' ? where.file : 'the store (a registered server)';
    const done = enabled ? 'Enabled' : 'Disabled';
    ctx.err(changed ? `${done} "${name}" in ${place}.` : `"${name}" was already ${verb}d (${place}).`);
  }
  return EXIT.ok;
}
