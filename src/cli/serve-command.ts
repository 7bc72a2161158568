import { createSwitchboard } from '../app/switchboard.js';
import { resolveGateway } from '../core/config/gateway-config.js';
import { csrfKey } from '../gateway/api/csrf.js';
import { ensureLocalToken, type LocalToken } from '../gateway/http/auth/local-token.js';
import { type HttpGateway, startHttpGateway } from '../gateway/http-gateway.js';
import { IdempotencyCache } from '../gateway/mcp/idempotency.js';
import { relayStateKey } from '../gateway/mcp/relay-state.js';
import { forwardingKey } from '../gateway/replicas/forwarded-header.js';
import { serveGatewayStdio } from '../gateway/stdio/serve-stdio.js';
import { loadSecretKey } from '../host/credentials/secret-key.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openDaemonInbox } from './daemon-inbox.js';
import { tuneGatewayHeap } from './gateway-heap.js';
import { reportListenProblem } from './listen-problem.js';
import { announceGateway } from './running-gateway.js';
import { boundStop, untilStopSignal } from './stop-signals.js';

/** Where the other replicas reach this gateway, when its listening address is not it. */
const REPLICA_URL_ENV = 'SWITCHBOARD_REPLICA_URL';

/**
 * `switchboard serve [--stdio]`: the gateway. With `--stdio` it speaks MCP on stdin/stdout for
 * a client that spawns it (and writes nothing else there: messages go to stderr); it exits
 * when the client closes the connection, closing every upstream server.
 */
export const SERVE_USAGE = `usage: switchboard serve [--host H] [--port N] [--insecure] | --stdio
  Serves every configured server as one MCP server: over Streamable HTTP at
  http://127.0.0.1:7777/mcp (both protocol eras; the "gateway" section of switchboard.json
  sets auth, limits and allow-lists), or on stdin/stdout with --stdio for clients that spawn
  their servers. Policy and consent apply; a call that policy asks about is put to the client.
  Binding anything but loopback without authentication is refused unless --insecure.`;

export async function serveCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    stdio: { type: 'boolean', default: false },
    host: { type: 'string' },
    port: { type: 'string' },
    insecure: { type: 'boolean', default: false },
  });
  if (positionals.length > 0)
    throw new UsageError(`serve takes no arguments ("${positionals[0]}"); see "switchboard serve --help".`);
  // A gateway runs for days under load: its heap should follow what it holds (gateway-heap.ts).
  tuneGatewayHeap();
  if (!values.stdio) return serveHttp(ctx, values);
  const switchboard = await createSwitchboard({
    projectDir: ctx.projectDir,
    projectFile: ctx.projectFile,
    homeDir: ctx.homeDir,
    dataDir: ctx.dataDir,
    // The gateway relays MCP Apps to the clients that declare them (docs/apps.md).
    connection: { apps: true },
  });
  // What is served, and how, is the gateway section's over stdio as over HTTP (its listener,
  // auth and HTTP limits do not apply: the client that spawned the process is its owner).
  const settings = resolveGateway(switchboard.config.gateway);
  const gateway = serveGatewayStdio(switchboard.host, {
    input: ctx.stdin,
    naming: settings.names,
    expose: settings.expose,
    consent: settings.consent,
    limits: settings.limits,
    idempotency: new IdempotencyCache(settings.idempotencyTtlMs),
    management: settings.management,
    taskSettings: settings.tasks,
    onerror: (error) => {
      if (ctx.verbose) ctx.err(`switchboard serve: ${error.message}`);
    },
  });
  // A stop signal closes the gateway, which ends `closed` as the client's hang-up does.
  let stopped: (() => void) | undefined;
  void untilStopSignal().then(() => {
    stopped = boundStop();
    return gateway.close();
  });
  await gateway.closed;
  await switchboard.close();
  stopped?.();
  return EXIT.ok;
}

async function serveHttp(
  ctx: CliContext,
  flags: { host?: string | undefined; port?: string | undefined; insecure?: boolean | undefined },
): Promise<ExitCode> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new UsageError(`--port must be a port number (0 picks a free one), not "${flags.port}".`);
  }
  const switchboard = await createSwitchboard({
    projectDir: ctx.projectDir,
    projectFile: ctx.projectFile,
    homeDir: ctx.homeDir,
    dataDir: ctx.dataDir,
    env: ctx.env,
    // The dashboard renders MCP Apps, and the gateway relays them to clients that declare them.
    connection: { apps: true },
  });
  const base = resolveGateway(switchboard.config.gateway);
  const settings = {
    ...base,
    ...(flags.host !== undefined && { host: flags.host }),
    ...(port !== undefined && { port }),
    ...(flags.insecure && { insecure: true }),
  };
  let gateway: HttpGateway;
  let localToken: LocalToken;
  try {
    // Gateways sharing SWITCHBOARD_SECRET_KEY accept each other's multi-round call state.
    const secret = await loadSecretKey({ dataDir: switchboard.dataDir, env: ctx.env });
    // The owner's credential for state changes without configured auth, and for the inbox.
    localToken = await ensureLocalToken(switchboard.dataDir);
    gateway = await startHttpGateway(switchboard.host, settings, {
      env: ctx.env,
      relayStateKey: relayStateKey(secret.bytes),
      csrfKey: csrfKey(secret.bytes),
      localToken,
      // On a shared store every gateway is a replica of one: any of them serves any session.
      ...(switchboard.sharedStore && {
        replicas: {
          key: forwardingKey(secret.bytes),
          ...(ctx.env[REPLICA_URL_ENV] && { url: ctx.env[REPLICA_URL_ENV] }),
        },
      }),
      ...(switchboard.telemetry?.metricsText && { metricsText: switchboard.telemetry.metricsText }),
    });
  } catch (error) {
    await switchboard.close();
    const anyPort = 'switchboard serve --port 0';
    return reportListenProblem(
      ctx,
      { verb: 'serve', host: settings.host, port: settings.port, anyPort },
      error,
    );
  }
  // One machine-readable line on stdout (scripts and tests wait for it); the rest on stderr.
  const closeInbox = await openDaemonInbox(ctx, switchboard.host, switchboard.dataDir, localToken.value);
  // One-shot verbs on this data dir ask this gateway instead of starting servers themselves.
  const unannounce = announceGateway(switchboard.dataDir, {
    url: new URL(gateway.url).origin,
    pid: process.pid,
    projectFile: ctx.projectFile,
  });
  const tokenFile = gateway.localToken === undefined ? undefined : localToken.file;
  ctx.out(
    ctx.json
      ? JSON.stringify({
          listening: gateway.url,
          dashboard: gateway.dashboardUrl,
          ...(tokenFile !== undefined && { tokenFile }),
        })
      : `listening ${gateway.url}`,
  );
  if (!ctx.quiet) ctx.err(serveBanner(gateway, settings.auth.mode, tokenFile, process.stderr.isTTY === true));
  await untilStopSignal();
  const stopped = boundStop();
  unannounce();
  await closeInbox();
  await gateway.close();
  await switchboard.close();
  stopped();
  return EXIT.ok;
}

/**
 * What `serve` says on stderr. The dashboard link carries the local token (when the gateway
 * takes it): printed for a person at a terminal, as `start` does; when stderr goes to a log, the
 * log gets where the token is instead, not the token.
 */
export function serveBanner(
  gateway: Pick<HttpGateway, 'url' | 'dashboardUrl' | 'dashboardLoginUrl'>,
  auth: string,
  tokenFile: string | undefined,
  terminal: boolean,
): string {
  const dashboard =
    gateway.dashboardLoginUrl === undefined
      ? gateway.dashboardUrl
      : terminal
        ? gateway.dashboardLoginUrl
        : `${gateway.dashboardUrl} (open it with ?token=<the token in ${tokenFile ?? 'the data dir'}>)`;
  return `Switchboard gateway at ${gateway.url} (auth: ${auth}), dashboard at ${dashboard}. Ctrl-C stops it.`;
}
