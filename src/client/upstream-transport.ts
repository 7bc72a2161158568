import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FetchLike, Transport } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../core/errors.js';
import { interpolate, interpolateRecord } from '../core/interpolate.js';
import type { ServerConfig } from '../core/server-config.js';
import type { CredentialStore } from './auth/credential-store.js';
import { resolveHttpAuth } from './auth/http-auth.js';
import type { AuthorizationHandler } from './auth/oauth-session.js';
import { oauthFetch } from './auth/request-auth.js';
import { STATE_DIR_VAR, sandboxEnv } from './sandbox/sandbox-env.js';
import type { SandboxNetOptions } from './sandbox/sandbox-net.js';
import {
  type GuardedFetch,
  type NetworkGuard,
  type RefusalWitness,
  witnessRefusals,
} from './transports/guarded-fetch.js';
import { HttpTransport } from './transports/http.js';
import { buildChildEnv } from './transports/safe-env.js';
import { SseTransport } from './transports/sse.js';
import { type SpawnRecorder, type StdioSandbox, StdioTransport } from './transports/stdio.js';

/**
 * Builds the transport for one connect attempt, expanding `${VAR}` references now (so an
 * environment change applies on the next reconnect, and an unset variable fails here with
 * its name rather than reaching the server). Remote entries get their `auth` here: a static
 * bearer token as a header, or OAuth through the SDK's `authProvider` seam plus our request
 * middleware (DPoP, step-up).
 */
export interface UpstreamTransportOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Use the legacy HTTP+SSE transport for an `http` entry (the 4xx fallback). */
  readonly sse: boolean;
  readonly onSpawn?: (pid: number) => void;
  /** Records every stdio server process spawned and ended (a host's spawn ledger). */
  readonly spawnRecorder?: SpawnRecorder;
  /** Where a sandboxed server's state directory goes, and what it is granted (entries with `sandbox`). */
  readonly sandbox?: UpstreamSandboxOptions;
  readonly onStderrLine?: (line: string) => void;
  readonly onStdoutNoise?: (line: string) => void;
  /** Where OAuth credentials live (default: in memory, per process). */
  readonly credentials?: CredentialStore;
  /** Shows an authorization URL when a login is needed; see AuthorizationHandler. */
  readonly onAuthorizationUrl?: AuthorizationHandler;
  readonly onAuthLog?: (text: string) => void;
  /**
   * A guarded server's network: the transport's requests, OAuth's included, go through a pool
   * of its own opened here and closed with the transport. Default: the global fetch.
   */
  readonly network?: NetworkGuard;
}

/** What a sandboxed stdio server's launch takes from its connection. */
export interface UpstreamSandboxOptions {
  /** The directory holding each sandboxed server's state directory (`<stateRoot>/<name>`); default ~/.switchboard/sandbox. */
  readonly stateRoot?: string;
  /** The roots the server is offered: the `file:` ones are the directories it may read. */
  readonly roots: readonly { readonly uri: string }[];
  /** Where bubblewrap is looked for (default: PATH, /usr/bin, /bin). */
  readonly bwrapDirs?: readonly string[];
  readonly onPrepared?: StdioSandbox['onPrepared'];
  /** A filtered network's judge, resolver and where its refusals are reported. */
  readonly network?: SandboxNetOptions;
}

export function createUpstreamTransport(config: ServerConfig, options: UpstreamTransportOptions): Transport {
  const { env } = options;
  const t = config.transport;
  const at = (field: string) => ({ server: config.name, field });
  if (t.kind === 'stdio') {
    const sandbox = t.sandbox?.kind === 'profile' ? t.sandbox.profile : undefined;
    const place = options.sandbox;
    const stateRoot = place?.stateRoot ?? defaultStateRoot();
    // A sandboxed entry may name its state directory: ${SWITCHBOARD_STATE_DIR}/memory.jsonl.
    const vars = sandbox ? { ...env, [STATE_DIR_VAR]: join(stateRoot, config.name) } : env;
    const own = interpolateRecord(t.env, vars, at('env'));
    return new StdioTransport({
      command: interpolate(t.command, vars, at('command')),
      args: t.args.map((a, i) => interpolate(a, vars, at(`args[${i}]`))),
      env: sandbox ? sandboxEnv(env, own, sandbox.env) : buildChildEnv(env, own),
      ...(t.cwd !== undefined && { cwd: interpolate(t.cwd, vars, at('cwd')) }),
      ...(options.onSpawn && { onSpawn: options.onSpawn }),
      ...(options.spawnRecorder && { spawnRecorder: options.spawnRecorder }),
      name: config.name,
      ...(options.onStderrLine && { onStderrLine: options.onStderrLine }),
      ...(options.onStdoutNoise && { onStdoutNoise: options.onStdoutNoise }),
      ...(sandbox && {
        sandbox: {
          server: config.name,
          profile: sandbox,
          roots: place?.roots ?? [],
          stateRoot,
          vars: env,
          ...(place?.bwrapDirs && { bwrapDirs: place.bwrapDirs }),
          ...(place?.network && { network: place.network }),
          ...(place?.onPrepared && { onPrepared: place.onPrepared }),
        },
      }),
    });
  }
  const url = interpolate(t.url, env, at('url'));
  const guarded = options.network?.open();
  const witness = guarded && witnessRefusals(guarded.fetch);
  const auth = resolveHttpAuth(config, url, {
    env,
    ...(options.credentials && { credentials: options.credentials }),
    ...(options.onAuthorizationUrl && { onAuthorizationUrl: options.onAuthorizationUrl }),
    ...(options.onAuthLog && { log: options.onAuthLog }),
    ...(witness && { fetch: witness.fetch }),
  });
  const session = auth.session;
  const http = {
    url,
    headers: { ...interpolateRecord(t.headers, env, at('headers')), ...auth.headers },
    ...(witness && { fetch: witness.fetch }),
    ...(session && {
      sdk: { authProvider: session.authProvider },
      fetchMiddleware: (next: FetchLike) => oauthFetch(session, next),
    }),
  };
  const transport =
    options.sse || t.kind === 'sse'
      ? new SseTransport({ ...http, endpointTimeoutMs: config.timeouts.connectMs })
      : new HttpTransport(http);
  if (guarded && witness) {
    witnesses.set(transport, witness);
    closeWith(transport, guarded);
  }
  return transport;
}

/** A library caller without a host: the state directories go where a host's would by default. */
function defaultStateRoot(): string {
  return join(homedir(), '.switchboard', 'sandbox');
}

/** Closes the connection's pool once its transport is closed, however that came about. */
function closeWith(transport: Transport, guarded: GuardedFetch): void {
  const close = transport.close.bind(transport);
  transport.close = async () => {
    try {
      await close();
    } finally {
      await guarded.close().catch(() => undefined);
    }
  };
}

const witnesses = new WeakMap<Transport, RefusalWitness>();

/** The last POLICY_DENIED a guarded transport's requests (its OAuth ones included) met. */
export function networkRefusal(transport: Transport): SwitchboardError | undefined {
  return witnesses.get(transport)?.refusal;
}
