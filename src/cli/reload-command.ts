import { FileCredentialStore } from '../client/auth/file-credential-store.js';
import type { NetworkGuard } from '../client/transports/guarded-fetch.js';
import { type ServerSnapshot, Supervisor } from '../host/supervisor/supervisor.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { type ConfiguredServer, findServer, networkFor, openSetup } from './configured-servers.js';
import { startSpinner } from './output/spinner.js';
import { styleFor } from './output/style.js';
import { renderTable } from './output/table.js';

/**
 * `switchboard reload [name]`: reads the configuration again and connects each server (or the
 * one named) once, the way the host would — one attempt, no retry schedule — then prints the
 * state each ended in and closes them. It is a check of the setup as it is now on disk; a
 * running gateway is not told (it has no control channel yet) and keeps its servers until it
 * is restarted.
 */
export const RELOAD_USAGE = `usage: switchboard reload [name] [--timeout SECONDS]
  Re-reads switchboard.json and the user config, connects every enabled server (or only
  <name>) once, and prints the state each ends in: connected with its counts, failed with
  the reason, needs_auth with the login command. Exits 3 when one is not connected. A running
  gateway is not changed: restart it to apply a new configuration there.`;

const SETTLING = new Set(['connecting', 'reconnecting']);

export async function reloadCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, { timeout: { type: 'string' } });
  if (positionals.length > 1) throw new UsageError('reload takes at most one server name.');
  const timeoutS = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutS !== undefined && !(timeoutS > 0))
    throw new UsageError(`--timeout takes a number of seconds, not "${values.timeout}".`);
  const view = await openSetup(ctx);
  let servers: readonly ConfiguredServer[];
  try {
    const name = positionals[0];
    servers = name === undefined ? view.servers : [findServer(view, name)];
  } finally {
    await view.close();
  }
  const snapshots = await connectOnce(ctx, servers, timeoutS, (s) => networkFor(view, s));
  const sources = new Map(servers.map((s) => [s.name, s.source]));
  const rows = snapshots.map((s) => ({ ...s, source: sources.get(s.name) ?? 'config' }));
  if (ctx.json) {
    ctx.out(JSON.stringify({ servers: rows }));
  } else {
    printStates(ctx, rows);
  }
  return rows.some((s) => s.state !== 'connected' && s.state !== 'disabled') ? EXIT.connection : EXIT.ok;
}

/** Connects every server once (disabled ones stay disabled) and returns how they ended. */
async function connectOnce(
  ctx: CliContext,
  servers: readonly ConfiguredServer[],
  timeoutS: number | undefined,
  networkOf: (server: ConfiguredServer) => NetworkGuard | undefined,
): Promise<readonly ServerSnapshot[]> {
  if (servers.length === 0) return [];
  const supervisor = new Supervisor({
    connection: { env: ctx.env, credentials: new FileCredentialStore({ dataDir: ctx.dataDir }) },
    // One attempt: a reload reports what is wrong now instead of retrying for two minutes.
    firstConnectDelaysMs: [],
  });
  const spinner = startSpinner(`connecting ${servers.map((s) => s.name).join(', ')}`, {
    stream: process.stderr,
    enabled: !ctx.json && !ctx.quiet && process.stderr.isTTY === true,
  });
  const update = (snaps: readonly ServerSnapshot[]) => {
    const waiting = snaps.filter((s) => SETTLING.has(s.state)).map((s) => s.name);
    if (waiting.length > 0) spinner.update(`connecting ${waiting.join(', ')}`);
  };
  supervisor.on('servers', update);
  try {
    for (const s of servers) {
      // An entry that does not normalize has nothing to connect: it is reported failed, with why.
      if (!s.config) {
        supervisor.hold(s.name, s.invalid!, { enabled: s.enabled });
        continue;
      }
      const config =
        timeoutS === undefined
          ? s.config
          : { ...s.config, timeouts: { ...s.config.timeouts, connectMs: timeoutS * 1000 } };
      // A registration is judged by governance.network at its connect, as in the host.
      const network = networkOf(s);
      supervisor.add(config, { enabled: s.enabled, ...(network && { network }) });
    }
    // A connect may be tried twice (an era or transport fallback): allow for both, and a margin.
    const budget = Math.max(
      0,
      ...servers.map((s) => (timeoutS ?? (s.config?.timeouts.connectMs ?? 0) / 1000) * 1000),
    );
    const settled = await supervisor.settled(budget * 2 + 1000);
    return settled;
  } finally {
    spinner.stop();
    supervisor.off('servers', update);
    await supervisor.stop();
  }
}

function printStates(ctx: CliContext, rows: readonly (ServerSnapshot & { source: string })[]): void {
  if (rows.length === 0) {
    ctx.err('No servers are configured. Add one with "switchboard add".');
    return;
  }
  const style = styleFor(process.stdout, ctx.env);
  const paint = (state: string) =>
    state === 'connected' ? style.green(state) : state === 'disabled' ? style.dim(state) : style.red(state);
  const table = [
    ['NAME', 'STATE', 'TRANSPORT', 'PROTOCOL', 'TOOLS', 'RESOURCES', 'PROMPTS'],
    ...rows.map((s) => [
      s.name,
      paint(s.state),
      s.transport,
      s.protocolVersion ?? '-',
      String(s.tools),
      String(s.resources),
      String(s.prompts),
    ]),
  ];
  for (const line of renderTable(table, {
    align: ['left', 'left', 'left', 'left', 'right', 'right', 'right'],
  }))
    ctx.out(line);
  for (const s of rows) {
    if (s.state === 'needs_auth') ctx.err(`${s.name}: needs a login. Run: switchboard auth ${s.name}`);
    else if (s.state === 'disabled')
      ctx.err(`${s.name}: disabled. Run "switchboard enable ${s.name}" to start it.`);
    else if (s.state !== 'connected')
      ctx.err(`${s.name}: ${s.error?.message ?? `still ${s.state} when the wait ended`}`);
  }
}
