import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createSwitchboard, type Switchboard } from '../app/switchboard.js';
import { openBrowser } from '../client/auth/login/open-browser.js';
import { projectConfigPath } from '../config-files/load-config.js';
import { resolveGateway } from '../core/config/gateway-config.js';
import { SwitchboardError } from '../core/errors.js';
import { csrfKey } from '../gateway/api/csrf.js';
import { ensureLocalToken, type LocalToken } from '../gateway/http/auth/local-token.js';
import { type HttpGateway, startHttpGateway } from '../gateway/http-gateway.js';
import { relayStateKey } from '../gateway/mcp/relay-state.js';
import { loadSecretKey } from '../host/credentials/secret-key.js';
import type { ServerSnapshot } from '../host/supervisor/supervisor.js';
import { type CliContext, defaultDataDir, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openDaemonInbox } from './daemon-inbox.js';
import { tuneGatewayHeap } from './gateway-heap.js';
import { styleFor } from './output/style.js';

/**
 * `switchboard start` (what `npm start` runs): the gateway on 127.0.0.1 with the bundled demo
 * (examples/demo/switchboard.json: fake weather, an elicitation demo, a filesystem server on a
 * sandbox folder) and the embedded SQLite store in ./.switchboard/. Prints where to connect and
 * what to try next; Ctrl-C stops it and every server it started.
 */
export const START_USAGE = `usage: switchboard start [--port N] [--no-open]
  Starts the demo: the gateway at http://127.0.0.1:7777/mcp serving the servers of
  examples/demo/switchboard.json, and the dashboard at http://127.0.0.1:7777/ui/, with its
  store in ./.switchboard/ (or --data-dir). Opens the dashboard in your browser when run at a
  terminal (--no-open does not). Prints the URLs and commands to try next. --port 0 picks a
  free port. Ctrl-C stops it. For your own servers, use "switchboard serve".`;

const DEFAULT_PORT = 7777;
const LOOPBACK = '127.0.0.1';
/** Set for the demo's servers: the demo folder, which its entries' `cwd` use. */
const DEMO_DIR_ENV = 'SWITCHBOARD_DEMO_DIR';
const demoDir = fileURLToPath(new URL('../../examples/demo/', import.meta.url));
const runningFromSource = import.meta.url.endsWith('.ts');

/** What the banner shows. */
interface StartInfo {
  readonly mcpUrl: string;
  /** Where the dashboard is served: the link that signs a browser in, with the local token. */
  readonly dashboardUrl: string;
  readonly configFile: string;
  readonly dataDir: string;
  readonly servers: readonly string[];
  /** How to run the CLI here: `npx switchboard`, or `npx tsx src/cli/main.ts` from a clone. */
  readonly cli: string;
  /** The `--config` argument that selects the demo config from the working directory. */
  readonly configArg: string;
}

export async function startCommand(ctx: CliContext): Promise<ExitCode> {
  const { port, open } = parseStartArgs(ctx.args);
  tuneGatewayHeap();
  const configFile = projectConfigPath(demoDir);
  if (!existsSync(configFile)) {
    throw new SwitchboardError(
      'CONFIG_READ_FAILED',
      `The demo config ${configFile} is not there: "switchboard start" runs the demo of a clone of ` +
        'the repository. To serve your own servers, use "switchboard serve".',
      { details: { file: configFile } },
    );
  }
  // Checked before any server starts, so a busy port fails at once instead of after the spawns.
  const busy = port === 0 ? undefined : await probePort(port);
  if (busy) return portProblem(ctx, port, busy);
  // The store goes in ./.switchboard/ next to the clone, unless --data-dir says otherwise.
  const dataDir =
    ctx.dataDir === defaultDataDir(ctx.homeDir) ? join(ctx.projectDir, '.switchboard') : ctx.dataDir;
  const switchboard = await createSwitchboard({
    projectDir: demoDir,
    // The demo folder as "home": no user config (~/.switchboard/config.json) mixes into the demo.
    homeDir: demoDir,
    dataDir,
    env: ctx.env,
    connection: { env: { ...ctx.env, [DEMO_DIR_ENV]: demoDir } },
  });
  const settings = { ...resolveGateway(switchboard.config.gateway), host: LOOPBACK, port };
  let gateway: HttpGateway;
  let localToken: LocalToken;
  try {
    // Keyed by the data dir's secret key, like serve: tokens and round states survive a restart.
    const secret = await loadSecretKey({ dataDir, env: ctx.env });
    // The owner's credential: the dashboard link below carries it, the inbox asks for it.
    localToken = await ensureLocalToken(dataDir);
    gateway = await startHttpGateway(switchboard.host, settings, {
      env: ctx.env,
      relayStateKey: relayStateKey(secret.bytes),
      csrfKey: csrfKey(secret.bytes),
      localToken,
      ...(switchboard.telemetry?.metricsText && { metricsText: switchboard.telemetry.metricsText }),
    });
  } catch (error) {
    await switchboard.close();
    return portProblem(ctx, port, error);
  }

  const dashboard = gateway.dashboardUrl;
  // What is printed and opened: the link that signs the browser in (a demo runs without auth).
  const login = gateway.dashboardLoginUrl ?? dashboard;
  const tokenFile = gateway.localToken === undefined ? undefined : localToken.file;
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const info: StartInfo = {
    mcpUrl: gateway.url,
    dashboardUrl: login,
    configFile: shown(configFile),
    dataDir: shown(dataDir),
    servers: switchboard.host.servers().map((s) => s.name),
    // From a clone nothing is built: the CLI runs from source, like `npm start` itself.
    cli: runningFromSource ? `npx tsx ${shown(main)}` : 'npx switchboard',
    configArg: shown(demoDir),
  };
  if (ctx.json) {
    const { mcpUrl: mcp, servers } = info;
    ctx.out(
      JSON.stringify({
        mcp,
        dashboard,
        ...(tokenFile !== undefined && { tokenFile }),
        config: configFile,
        dataDir,
        servers,
      }),
    );
  } else for (const line of startBanner(info, styleFor(process.stdout, ctx.env))) ctx.out(line);
  // `npm start` opens onto the dashboard — at a person's terminal only: never for scripts,
  // CI, or --json, where a browser window appearing would be a surprise.
  if (open && !ctx.json && process.stdout.isTTY && !ctx.env.CI) void openBrowser(login);
  const stopProgress = ctx.json || ctx.quiet ? () => undefined : reportProgress(switchboard, ctx);
  const closeInbox = await openDaemonInbox(ctx, switchboard.host, dataDir, localToken.value);

  await untilSignal();
  const stopping = Date.now();
  // Wrappers (npm, tsx) pass the terminal's Ctrl-C on too, so one key press can arrive twice: a
  // repeat within a second is that echo. A later one means "now" — the stdio transport's exit
  // hook still kills every server's process group.
  const force = () => {
    if (Date.now() - stopping >= 1000) process.exit(130);
  };
  process.on('SIGINT', force);
  process.on('SIGTERM', force);
  if (!ctx.json && !ctx.quiet) ctx.err('Stopping the gateway and the demo servers…');
  stopProgress();
  await closeInbox();
  await gateway.close();
  await switchboard.close();
  process.off('SIGINT', force);
  process.off('SIGTERM', force);
  if (!ctx.json && !ctx.quiet) ctx.err('Stopped.');
  return EXIT.ok;
}

/** The lines printed once the gateway listens. Pure. */
function startBanner(info: StartInfo, style = styleFor({}, {})): string[] {
  const cli = `${info.cli} --config ${info.configArg}`;
  return [
    style.bold('Switchboard is running.'),
    '',
    `  Dashboard     ${style.cyan(info.dashboardUrl)}   (servers, tools, inbox, logs, audit)`,
    `  MCP endpoint  ${style.cyan(info.mcpUrl)}   (Streamable HTTP, both protocol eras)`,
    `  Config        ${info.configFile}   (servers: ${info.servers.join(', ')})`,
    `  Data          ${info.dataDir}/   (SQLite store, logs, media)`,
    '',
    'Try next, in another terminal:',
    `  ${cli} tools weather`,
    `  ${cli} call weather.get_forecast city=Lisbon days=3`,
    `  claude mcp add --transport http switchboard ${info.mcpUrl}   ${style.dim('# or any MCP client, at that URL')}`,
    '',
    style.dim('Ctrl-C stops it.'),
  ];
}

/** Binds the port for a moment: undefined when it is free, else the error that binding gave. */
function probePort(port: number): Promise<unknown> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen(port, LOOPBACK, () => probe.close(() => resolve(undefined)));
  });
}

/** Says why the port could not be opened and what to do (exit 3); rethrows anything else. */
function portProblem(ctx: CliContext, port: number, error: unknown): ExitCode {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
  const message =
    code === 'EADDRINUSE'
      ? `Port ${port} on ${LOOPBACK} is already in use (another Switchboard?). Stop that process, or ` +
        'pick another port: "npm start -- --port 0" takes any free one.'
      : `Port ${port} may not be opened by this user. Use a port above 1023, or "--port 0" for any free one.`;
  if (ctx.json) ctx.out(JSON.stringify({ error: { code: 'PORT_UNAVAILABLE', message } }));
  else ctx.err(`switchboard start: ${message}`);
  return EXIT.connection;
}

/** A path as a person in the working directory would type it: relative below it, else absolute. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path.replace(/\/$/, '') : rel;
}

function parseStartArgs(args: readonly string[]): { port: number; open: boolean } {
  let values: { port?: string | undefined; 'no-open'?: boolean | undefined };
  try {
    values = parseArgs({
      args: [...args],
      options: { port: { type: 'string' }, 'no-open': { type: 'boolean' } },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. See "switchboard start --help".`);
  }
  return { port: parsePort(values.port), open: values['no-open'] !== true };
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be a port number (0 picks a free one), not "${raw}".`);
  return port;
}

/** Prints each server's arrival (or failure) on stderr as it happens; returns the unsubscribe. */
function reportProgress(switchboard: Switchboard, ctx: CliContext): () => void {
  const style = styleFor(process.stderr, ctx.env);
  const seen = new Map<string, string>();
  let announced = false;
  const onServers = (snapshots: readonly ServerSnapshot[]) => {
    for (const s of snapshots) {
      if (seen.get(s.name) === s.state) continue;
      seen.set(s.name, s.state);
      if (s.state === 'connected')
        ctx.err(`  ${style.green('✓')} ${s.name}: ${s.tools} ${s.tools === 1 ? 'tool' : 'tools'}`);
      else if (s.state === 'failed' || s.state === 'needs_auth')
        ctx.err(`  ${style.red('✗')} ${s.name}: ${s.state}. ${s.error?.message ?? ''}`.trimEnd());
    }
    if (!announced && snapshots.length > 0 && snapshots.every((s) => s.state === 'connected')) {
      announced = true;
      ctx.err(`All ${snapshots.length} demo servers are connected.`);
    }
  };
  switchboard.host.on('servers', onServers);
  return () => switchboard.host.off('servers', onServers);
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
