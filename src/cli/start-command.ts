import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openDaemonInbox } from './daemon-inbox.js';
import { resolveDataDir } from './data-dir.js';
import { tuneGatewayHeap } from './gateway-heap.js';
import { probePort, reportListenProblem } from './listen-problem.js';
import { styleFor } from './output/style.js';
import { announceGateway } from './running-gateway.js';
import { demoSshdAddress, probeSshBanner } from './sshd-probe.js';
import { boundStop, untilStopSignal } from './stop-signals.js';

/**
 * `switchboard start` (what `npm start` runs): the gateway on 127.0.0.1 with the bundled demo
 * (examples/demo/switchboard.json: fake weather, an elicitation demo, a filesystem server on a
 * sandbox folder) and the embedded SQLite store in ./.switchboard/. Prints where to connect and
 * what to try next; Ctrl-C stops it and every server it started.
 */
export const START_USAGE = `usage: switchboard start [--port N] [--no-open] [--data-dir DIR]
  Starts the demo: the gateway at http://127.0.0.1:7777/mcp serving the servers of
  examples/demo/switchboard.json, and the dashboard at http://127.0.0.1:7777/ui/, with its
  store in ./.switchboard/ (or --data-dir). Opens the dashboard in your browser when run at a
  terminal (--no-open does not). Prints the URLs and commands to try next. --port 0 picks a
  free port. Ctrl-C stops it. For your own servers, use "switchboard serve".`;

const DEFAULT_PORT = 7777;
const LOOPBACK = '127.0.0.1';
/** Set for the demo's servers: the demo folder, which its entries' `cwd` use. */
const DEMO_DIR_ENV = 'SWITCHBOARD_DEMO_DIR';
// A clone runs examples/demo/ from source (whether the CLI runs from src/ or from the dist/
// that `npm install` compiled: both sit two folders below the root); an installed package has
// no examples/ and runs its build, dist/demo/ (made by scripts/build-demo.mjs: the same servers
// as plain JavaScript).
const cloneDemo = fileURLToPath(new URL('../../examples/demo/', import.meta.url));
const demoDir = existsSync(cloneDemo) ? cloneDemo : fileURLToPath(new URL('../demo/', import.meta.url));
// The SSH example server (examples/ssh/switchboard.json) is offered, never served by the demo:
// the demo's MCP endpoint is open to every local user, and that server logs in with the owner's
// SSH keys, so serving it would hand any local user a shell as the owner. When an sshd answers,
// the banner says how to try it at the owner's own terminal instead. A clone only: the server
// needs ssh2, a dev dependency, so an installed package has no examples/ and shows nothing.
const sshExample = fileURLToPath(new URL('../../examples/ssh/', import.meta.url));
const SSH_PROBE_MS = 1_000;

/** What the banner shows. */
interface StartInfo {
  readonly mcpUrl: string;
  /** Where the dashboard is served: the link that signs a browser in, with the local token. */
  readonly dashboardUrl: string;
  readonly configFile: string;
  readonly dataDir: string;
  readonly servers: readonly string[];
  /** How to run the CLI here. */
  readonly cli: string;
  /** The `--config` argument that selects the demo config from the working directory. */
  readonly configArg: string;
  /** An sshd that answered, and the command that tries the SSH example server on it. */
  readonly ssh?: { readonly sshd: string; readonly address: string; readonly command: string };
}

/** The SSH offer, when the clone has the example and an sshd answers where the demo looks. */
async function sshOffer(env: NodeJS.ProcessEnv, cli: string): Promise<StartInfo['ssh']> {
  if (!existsSync(join(sshExample, 'switchboard.json'))) return undefined;
  const { host, port } = demoSshdAddress(env);
  const sshd = await probeSshBanner(host, port, SSH_PROBE_MS);
  if (sshd === undefined) return undefined;
  const user = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(userInfo().username) ? userInfo().username : 'USER';
  const address = port === 22 ? host : `${host}:${port}`;
  // The example's config runs the server by a path from the repository's folder.
  const root = resolve(sshExample, '../..');
  const from = resolve(process.cwd()) === root ? '' : `cd ${root} && `;
  return {
    sshd,
    address: `${host}:${port}`,
    command: `${from}${cli} --config examples/ssh call ssh.sysinfo alias=${user}@${address}`,
  };
}

export async function startCommand(ctx: CliContext): Promise<ExitCode> {
  const { port, open, dataDir: ownDataDir } = parseStartArgs(ctx.args);
  tuneGatewayHeap();
  const configFile = projectConfigPath(demoDir);
  if (!existsSync(configFile)) {
    throw new SwitchboardError(
      'CONFIG_READ_FAILED',
      `The demo config ${configFile} is not there: "switchboard start" runs examples/demo/ of a clone, ` +
        'or dist/demo/ of a built package (npm run build makes it). To serve your own servers, use "switchboard serve".',
      { details: { file: configFile } },
    );
  }
  // Checked before any server starts, so a busy port fails at once instead of after the spawns.
  const busy = port === 0 ? undefined : await probePort(LOOPBACK, port);
  if (busy) return portProblem(ctx, port, busy);
  // The store goes in the project's .switchboard/ (the clone's), unless --data-dir says
  // otherwise: the folder every other verb run here then finds (data-dir.ts).
  const dataDir =
    ownDataDir ??
    (ctx.dataDirFrom === 'flag' || ctx.dataDirFrom === undefined
      ? ctx.dataDir
      : resolveDataDir({ projectDir: ctx.projectDir, homeDir: ctx.homeDir, create: true }).dir);
  const switchboard = await createSwitchboard({
    projectDir: demoDir,
    // The demo folder as "home": no user config (~/.switchboard/config.json) mixes into the demo.
    homeDir: demoDir,
    dataDir,
    env: ctx.env,
    // The dashboard renders MCP Apps (docs/apps.md).
    connection: { env: { ...ctx.env, [DEMO_DIR_ENV]: demoDir }, apps: true },
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
  const info: StartInfo = {
    mcpUrl: gateway.url,
    dashboardUrl: login,
    configFile: shown(configFile),
    dataDir: shown(dataDir),
    servers: switchboard.host.servers().map((s) => s.name),
    // A clone links its own command into node_modules/.bin (scripts/link-bin.mjs).
    cli: 'npx switchboard',
    configArg: shown(demoDir),
  };
  const ssh = await sshOffer(ctx.env, info.cli);
  if (ssh !== undefined) Object.assign(info, { ssh });
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
        ...(info.ssh && { ssh: info.ssh }),
      }),
    );
  } else for (const line of startBanner(info, styleFor(process.stdout, ctx.env))) ctx.out(line);
  // `npm start` opens onto the dashboard — at a person's terminal only: never for scripts,
  // CI, or --json, where a browser window appearing would be a surprise.
  if (open && !ctx.json && process.stdout.isTTY && !ctx.env.CI) void openBrowser(login);
  const stopProgress = ctx.json || ctx.quiet ? () => undefined : reportProgress(switchboard, ctx);
  const closeInbox = await openDaemonInbox(ctx, switchboard.host, dataDir, localToken.value);
  // `--config examples/demo --data-dir .switchboard <verb>` asks this gateway (running-gateway.ts).
  const unannounce = announceGateway(dataDir, {
    url: new URL(gateway.url).origin,
    pid: process.pid,
    projectFile: configFile,
  });

  await untilStopSignal();
  const stopped = boundStop({
    onForce: (why) => {
      if (why === 'timeout' && !ctx.quiet)
        ctx.err('switchboard start: stopping took too long; exiting (every server is ended with it).');
    },
  });
  if (!ctx.json && !ctx.quiet) ctx.err('Stopping the gateway and the demo servers…');
  stopProgress();
  unannounce();
  await closeInbox();
  await gateway.close();
  await switchboard.close();
  stopped();
  if (!ctx.json && !ctx.quiet) ctx.err('Stopped.');
  return EXIT.ok;
}

/** The lines printed once the gateway listens. Pure. */
function startBanner(info: StartInfo, style = styleFor({}, {})): string[] {
  const cli = `${info.cli} --config ${info.configArg}`;
  const ssh = info.ssh
    ? [
        '',
        `An SSH server answers on ${info.ssh.address} (${info.ssh.sshd}). The SSH MCP server is not in the demo`,
        "(it logs in with your keys, and the demo's endpoint is open to every local user); try it here:",
        `  ${info.ssh.command}   ${style.dim('# asks you to trust the host key')}`,
      ]
    : [];
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
    ...ssh,
    '',
    style.dim('Ctrl-C stops it.'),
  ];
}

/** Says why the port could not be opened and what to do (exit 3); rethrows anything else. */
function portProblem(ctx: CliContext, port: number, error: unknown): ExitCode {
  return reportListenProblem(
    ctx,
    { verb: 'start', host: LOOPBACK, port, anyPort: 'npm start -- --port 0' },
    error,
  );
}

/** A path as a person in the working directory would type it: relative below it, else absolute. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path.replace(/\/$/, '') : rel;
}

function parseStartArgs(args: readonly string[]): { port: number; open: boolean; dataDir?: string } {
  const { values, positionals } = parseVerbArgs(args, {
    port: { type: 'string' },
    'no-open': { type: 'boolean' },
    // --data-dir here too: `npm start -- --data-dir DIR` puts it after the verb.
    'data-dir': { type: 'string' },
  });
  if (positionals.length > 0)
    throw new UsageError(`start takes no arguments ("${positionals[0]}"); see "switchboard start --help".`);
  return {
    port: parsePort(values.port),
    open: values['no-open'] !== true,
    ...(values['data-dir'] !== undefined && { dataDir: resolve(values['data-dir']) }),
  };
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
