import type { Client, Implementation, Transport } from '@modelcontextprotocol/client';
import { describeError, SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import { attemptFailure } from './attempt-failure.js';
import { findAuthError } from './auth/auth-errors.js';
import { type StdoutNoise, versionError } from './connect-errors.js';
import type { ConnectAttempt } from './connect-recovery.js';
import type { ConnectionOptions, LogEntry } from './connection-types.js';
import { DirectRequests } from './direct-requests.js';
import type { ListKind } from './list-cache.js';
import type { RequestRunner } from './request-runner.js';
import { repairNoiseLine } from './response-shape.js';
import { resolveRoots } from './roots.js';
import { buildSdkClient } from './sdk-client.js';
import type { ServerRequestContext, ServerRequestHandlers } from './server-requests.js';
import { type ServerLogSink, tapTransport, type WireTap } from './transport-tap.js';
import { StdioTransport } from './transports/stdio.js';
import { createUpstreamTransport } from './upstream-transport.js';

/**
 * One connect attempt: the transport, the SDK client wired to the connection, the tap, the
 * handshake, and the checks after it (a pinned version, a close while connecting). A failed
 * attempt leaves nothing running and throws one typed error.
 */

/** A live session: what a successful attempt hands the connection. */
export interface Session {
  readonly client: Client;
  readonly transport: Transport;
  readonly tap: WireTap;
  /** 2026-07-28 relays and callTool past the SDK's request machinery, where allowed (direct-requests.ts). */
  readonly direct?: DirectRequests;
}

/** What an attempt needs of its connection. */
export interface AttemptWiring {
  readonly config: ServerConfig;
  readonly options: ConnectionOptions;
  readonly handlers: ServerRequestHandlers;
  readonly runner: RequestRunner;
  readonly pageCap: number;
  readonly clientInfo: Implementation;
  readonly log: (source: LogEntry['source'], level: string, text: string, logger?: string) => void;
  readonly context: (signal: AbortSignal) => ServerRequestContext;
  readonly onListChanged: (kind: ListKind) => void;
  /** The transport of the attempt under way (undefined once it is over), so close() can cut it short. */
  readonly connecting: (transport: Transport | undefined) => void;
  /** True once the connection was closed: a handshake that finishes then is undone. */
  readonly closed: () => boolean;
  /** A failed attempt's transport still ending what it started (close() waits for it). */
  readonly ending: (closing: Promise<void>) => void;
}

export async function openSession(attempt: ConnectAttempt, wiring: AttemptWiring): Promise<Session> {
  const { config, options, log } = wiring;
  // What the server wrote on stdout that is not JSON-RPC, counted for the failure message.
  const noise: StdoutNoise = { lines: 0 };
  const transport = createUpstreamTransport(config, {
    env: options.env ?? process.env,
    sse: attempt.sse === true,
    onSpawn: (pid) => log('lifecycle', 'info', `started process ${pid}`),
    ...(options.spawnRecorder && { spawnRecorder: options.spawnRecorder }),
    onStderrLine: (line) => log('stderr', 'info', line),
    onStdoutNoise: (line) => {
      const repaired = repairNoiseLine(line);
      if (repaired) transport.onmessage?.(repaired);
      else {
        noise.lines += 1;
        noise.first ??= line;
        log('stdout', 'warning', `not JSON-RPC, ignored: ${line}`);
      }
    },
    ...(options.credentials && { credentials: options.credentials }),
    ...(options.onAuthorizationUrl && { onAuthorizationUrl: options.onAuthorizationUrl }),
    onAuthLog: (text) => log('lifecycle', 'info', text),
    ...(options.network && { network: options.network }),
    sandbox: {
      ...(options.sandboxDir !== undefined && { stateRoot: options.sandboxDir }),
      // The directories it may see are the roots it is told of (roots.ts): the two agree.
      roots: resolveRoots(config.roots, options.defaultRoots),
      ...(options.bwrapDirs && { bwrapDirs: options.bwrapDirs }),
      ...(options.sandboxNetwork && {
        network: {
          ...options.sandboxNetwork,
          onEvent: (event) => log('lifecycle', 'warning', `sandbox network: ${event.text}`),
        },
      }),
      onPrepared: (prepared) => {
        log(
          'lifecycle',
          'info',
          `sandboxed (${prepared.backend}); state directory ${prepared.stateDir}; ${prepared.summary}`,
        );
        for (const warning of prepared.warnings) log('lifecycle', 'warning', `sandbox: ${warning}`);
      },
    },
  });
  const onServerLog: ServerLogSink = (level, text, logger) => log('server', level, text, logger);
  const client = buildSdkClient(attempt.plan, {
    clientInfo: wiring.clientInfo,
    pageCap: wiring.pageCap,
    handlers: wiring.handlers,
    interactively: (fn) => wiring.runner.deadlines.whilePaused(fn),
    context: wiring.context,
    onListChanged: wiring.onListChanged,
    onServerLog,
    onNotification: (method, params) =>
      options.onEvent?.({ server: config.name, method, params, receivedAt: new Date() }),
    onTransportError: (error) => log('lifecycle', 'debug', `transport: ${describeError(error)}`),
    apps: options.apps === true,
  });
  const tap = tapTransport(transport, wiring.runner.progress, onServerLog);
  wiring.connecting(transport);
  try {
    await client.connect(transport, {
      timeout: config.timeouts.connectMs,
      ...(attempt.plan.prior && { prior: attempt.plan.prior }),
    });
  } catch (error) {
    wiring.connecting(undefined);
    // Classify first: closing the transport ourselves would look like the server exiting.
    // An auth error wins: the SDK wraps some (a probe's failed send) in errors of its own.
    const failure =
      findAuthError(error) ??
      attemptFailure({
        server: config.name,
        error,
        transport,
        plan: attempt.plan,
        connectMs: config.timeouts.connectMs,
        offered: tap.offered(),
        probeServerError: tap.probeServerError(),
        stdoutNoise: noise,
      });
    // The failure is known now; ending what the attempt started (a server that ignores
    // SIGTERM takes the whole kill grace) is not the caller's wait. It is handed to the
    // connection, whose close() still waits for it, so nothing is left behind.
    wiring.ending(
      (async () => {
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
      })(),
    );
    throw failure;
  }
  const negotiated = client.getNegotiatedProtocolVersion();
  if (attempt.plan.pinned !== undefined && negotiated !== attempt.plan.pinned) {
    wiring.connecting(undefined);
    await client.close().catch(() => undefined);
    throw versionError(config.name, negotiated ?? tap.offered() ?? 'none', [attempt.plan.pinned]);
  }
  wiring.connecting(undefined);
  if (wiring.closed()) {
    // close() was called while we were connecting: leave nothing running.
    await client.close().catch(() => undefined);
    throw new SwitchboardError('NOT_CONNECTED', `Connection "${config.name}" was closed while connecting.`, {
      details: { server: config.name },
    });
  }
  const lane = options.directRequests !== false && transport instanceof StdioTransport;
  const direct = lane ? DirectRequests.attach(client, transport) : undefined;
  return { client, transport, tap, ...(direct && { direct }) };
}
