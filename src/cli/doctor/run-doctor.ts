import { join } from 'node:path';
import type { CredentialStore } from '../../client/auth/credential-store.js';
import { FileCredentialStore } from '../../client/auth/file-credential-store.js';
import { Connection } from '../../client/connection.js';
import type { LogEntry } from '../../client/connection-types.js';
import type { NetworkGuard } from '../../client/transports/guarded-fetch.js';
import { describeSandbox } from '../../core/config/sandbox-config.js';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import type { ServerConfig } from '../../core/server-config.js';
import { sandboxDestinations } from '../../policy/sandbox-destination.js';
import { commandSteps, urlSteps, variablesStep } from './preflight.js';
import { type DoctorConnection, type DoctorReport, type DoctorStep, skipped } from './report.js';

/**
 * The checks of `switchboard doctor <server>`, in the order a connect meets them: the entry,
 * the variables it refers to, the command on PATH or the URL and its host name, then one real
 * connect with a trace (spawn, handshake and protocol version, capabilities, list counts) and
 * the login state. A failed step skips the steps that depend on it.
 */
export type DoctorTarget = RunnableTarget | InvalidTarget;

/** A server whose entry normalizes: every step is checked. */
export interface RunnableTarget {
  readonly config: ServerConfig;
  readonly enabled: boolean;
  readonly source: string;
}

/** A server whose entry does not normalize: the config step fails with why, the rest is skipped. */
export interface InvalidTarget {
  readonly name: string;
  readonly invalid: SwitchboardError;
  readonly enabled: boolean;
  readonly source: string;
}

/** What `runDoctor` needs besides the server. */
export interface DoctorOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where stored OAuth credentials are looked for (files), unless `credentials` is given. */
  readonly dataDir: string;
  /** The credential store to use, e.g. the PostgreSQL store's (default: the files in `dataDir`). */
  readonly credentials?: CredentialStore;
  /** The working directory servers start in (a relative command is found from there). */
  readonly cwd: string;
  /** Overrides the entry's connect timeout. */
  readonly connectTimeoutMs?: number;
  /** Each step as it completes, for a person watching. */
  readonly onStep?: (step: DoctorStep) => void;
  /** A registration's network guard (governance.network), as the host connects it. */
  readonly network?: NetworkGuard;
}

const LIST_STEPS = ['capabilities', 'tools', 'resources', 'prompts'] as const;

/** Checks one server and returns the report; never throws for what it finds, only reports it. */
export async function runDoctor(target: DoctorTarget, options: DoctorOptions): Promise<DoctorReport> {
  if (!('config' in target)) return invalidReport(target, options);
  const { config } = target;
  const steps: DoctorStep[] = [];
  const add = (...more: DoctorStep[]) => {
    for (const s of more) {
      // Whole milliseconds: finer would be noise for a person and for a script.
      const step = s.ms === undefined ? s : { ...s, ms: Math.round(s.ms) };
      steps.push(step);
      options.onStep?.(step);
    }
  };
  const report = (connection?: DoctorConnection): DoctorReport => ({
    server: config.name,
    transport: config.transport.kind,
    source: target.source,
    steps,
    ...(connection && { connection }),
  });
  const sandbox =
    config.transport.kind === 'stdio' ? `; sandbox: ${describeSandbox(config.transport.sandbox)}` : '';
  add(
    target.enabled
      ? {
          step: 'config',
          status: 'ok',
          detail: `${config.transport.kind} entry from ${target.source}${sandbox}`,
        }
      : {
          step: 'config',
          status: 'warn',
          detail: `${config.transport.kind} entry from ${target.source}, disabled`,
          fix: `"${config.name}" is disabled and does not start: run "switchboard enable ${config.name}".`,
        },
  );
  add(variablesStep(config, options.env));
  const later = [...(config.transport.kind === 'stdio' ? ['spawn'] : []), 'handshake', ...LIST_STEPS];
  if (steps.some((s) => s.status === 'fail')) {
    add(...skipped(later, 'skipped until the variables are set'));
    return report();
  }
  const reachability =
    config.transport.kind === 'stdio' ? await commandSteps(config, options) : await urlSteps(config, options);
  add(...reachability);
  if (reachability.some((s) => s.status === 'fail')) {
    add(...skipped(later, 'skipped: fix the step above first'));
    return report();
  }
  return report(await traceConnect(config, options, add));
}

/** The report of an entry that does not normalize: its error, and nothing else checked. */
function invalidReport(target: InvalidTarget, options: DoctorOptions): DoctorReport {
  const steps: DoctorStep[] = [
    {
      step: 'config',
      status: 'fail',
      detail: `the entry from ${target.source} is not valid: ${target.invalid.message}`,
      fix: `Correct the entry of "${target.name}" as the message says (or remove it: switchboard remove ${target.name}).`,
    },
    ...skipped(['variables', 'handshake', ...LIST_STEPS], 'skipped until the entry is valid'),
  ];
  for (const step of steps) options.onStep?.(step);
  return { server: target.name, transport: 'stdio', source: target.source, steps };
}

/** Connects once and traces it; returns what the handshake told, if it got through. */
async function traceConnect(
  config: ServerConfig,
  options: DoctorOptions,
  add: (...steps: DoctorStep[]) => void,
): Promise<DoctorConnection | undefined> {
  const started = performance.now();
  let spawned: { pid: string; at: number } | undefined;
  // What the sandbox holds to, as its launch said it (and what it cannot).
  let sandboxed: { detail: string; warnings: string[] } | undefined;
  const retries: string[] = [];
  const stderr: string[] = [];
  const onLog = (entry: LogEntry) => {
    if (entry.source === 'stderr') {
      stderr.push(entry.text);
      if (stderr.length > 3) stderr.shift();
    } else if (entry.source === 'lifecycle') {
      // The connection reports these two only as its own log lines; they are what the trace shows.
      const pid = /^started process (\d+)/.exec(entry.text)?.[1];
      const inForce = /^sandboxed \((?:bubblewrap|container)\); (.*)$/.exec(entry.text)?.[1];
      if (inForce !== undefined) sandboxed = { detail: inForce, warnings: [] };
      else if (entry.text.startsWith('sandbox: ')) sandboxed?.warnings.push(entry.text.slice(9));
      else if (pid !== undefined) {
        // A retry starts the process again: its stderr is the one that tells.
        spawned = { pid, at: performance.now() };
        stderr.length = 0;
      } else if (entry.text.startsWith('retrying connect: ')) retries.push(entry.text.slice(18));
    }
  };
  const connection = new Connection({
    config:
      options.connectTimeoutMs === undefined
        ? config
        : { ...config, timeouts: { ...config.timeouts, connectMs: options.connectTimeoutMs } },
    env: options.env,
    credentials: options.credentials ?? new FileCredentialStore({ dataDir: options.dataDir }),
    ...(options.network && { network: options.network }),
    // Sandboxed as the host runs it, in the same state directory, its destinations judged alike.
    sandboxDir: join(options.dataDir, 'sandbox'),
    sandboxNetwork: { judge: sandboxDestinations },
    onLog,
  });
  const spawnStep = (): DoctorStep[] => [
    ...(sandboxed
      ? [
          sandboxed.warnings.length === 0
            ? { step: 'sandbox', status: 'ok' as const, detail: sandboxed.detail }
            : {
                step: 'sandbox',
                status: 'warn' as const,
                detail: `${sandboxed.detail}; ${sandboxed.warnings.join('; ')}`,
                fix: `The sandbox of "${config.name}" does not hold all its limits: ${sandboxed.warnings.join(' ')}`,
              },
        ]
      : []),
    ...(spawned
      ? [{ step: 'spawn', status: 'ok' as const, detail: `process ${spawned.pid}`, ms: spawned.at - started }]
      : []),
  ];
  try {
    try {
      await connection.connect();
    } catch (error) {
      add(
        ...spawnStep(),
        ...failureSteps(config, error, stderr, retries),
        ...skipped([...LIST_STEPS], 'not connected'),
      );
      return undefined;
    }
    const handshakeStart = spawned?.at ?? started;
    const era = connection.era;
    const info = connection.serverInfo;
    const method = era === 'modern' ? 'server/discover' : 'initialize';
    const after = retries.length > 0 ? ` (after a retry: ${retries.join('; ')})` : '';
    add(...spawnStep(), {
      step: 'handshake',
      status: 'ok',
      detail: `${method} → protocol ${connection.protocolVersion ?? '?'}${info ? `, ${info.name} ${info.version}` : ''}${after}`,
      ms: performance.now() - handshakeStart,
    });
    const capabilities = Object.keys(connection.capabilities ?? {}).sort();
    add({ step: 'capabilities', status: 'ok', detail: capabilities.join(', ') || 'none declared' });
    const counts = {
      tools: await countStep(add, 'tools', capabilities, () => connection.listTools()),
      resources: await countStep(add, 'resources', capabilities, () => connection.listResources()),
      prompts: await countStep(add, 'prompts', capabilities, () => connection.listPrompts()),
    };
    if (config.transport.kind !== 'stdio' && config.auth)
      add({
        step: 'auth',
        status: 'ok',
        detail:
          config.auth.type === 'oauth' ? 'authorized (stored credentials)' : 'static bearer token accepted',
      });
    return {
      ...(connection.protocolVersion !== undefined && { protocolVersion: connection.protocolVersion }),
      ...(era && { era }),
      ...(info && { serverInfo: { name: info.name, version: info.version } }),
      capabilities,
      ...Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== undefined)),
    };
  } finally {
    await connection.close().catch(() => undefined);
  }
}

async function countStep(
  add: (...steps: DoctorStep[]) => void,
  kind: 'tools' | 'resources' | 'prompts',
  capabilities: readonly string[],
  list: () => Promise<{ items: readonly unknown[]; truncated?: boolean }>,
): Promise<number | undefined> {
  if (!capabilities.includes(kind)) {
    add({ step: kind, status: 'skip', detail: 'not offered' });
    return undefined;
  }
  const started = performance.now();
  try {
    const { items, truncated } = await list();
    add({
      step: kind,
      status: truncated ? 'warn' : 'ok',
      detail: `${items.length} ${items.length === 1 ? kind.slice(0, -1) : kind}${truncated ? ' (more pages than are followed)' : ''}`,
      ms: performance.now() - started,
      ...(truncated && {
        fix: `The ${kind} list of the server has more pages than Switchboard follows; only the first are used.`,
      }),
    });
    return items.length;
  } catch (error) {
    add({
      step: kind,
      status: 'warn',
      detail: `${kind}/list failed: ${describeError(error)}`,
      ms: performance.now() - started,
      fix: `The server fails ${kind}/list; see "switchboard logs <server>" for its side.`,
    });
    return undefined;
  }
}

/** The steps a failed connect ends with: a login to do, or what went wrong, with the server's last words. */
function failureSteps(
  config: ServerConfig,
  error: unknown,
  stderr: readonly string[],
  retries: readonly string[],
): DoctorStep[] {
  const failure = isSwitchboardError(error)
    ? error
    : new SwitchboardError('CONNECT_FAILED', describeError(error));
  const login = `switchboard auth ${config.name}`;
  if (failure.code === 'AUTH_REQUIRED') {
    return [
      { step: 'handshake', status: 'ok', detail: 'the server answered and asks for authorization' },
      {
        step: 'auth',
        status: 'fail',
        detail: 'needs_auth: no usable login',
        fix: `Log in: ${String(failure.details.command ?? login)}`,
      },
    ];
  }
  if (failure.code === 'UPSTREAM_HTTP' && failure.details.status === 401 && config.auth?.type !== 'oauth') {
    return [
      { step: 'handshake', status: 'ok', detail: 'the server answered 401: it wants authorization' },
      {
        step: 'auth',
        status: 'fail',
        detail: 'no credentials configured',
        fix: `Add "auth": { "type": "oauth" } to "${config.name}" and run "${login}", or give it an "api_key" or headers.`,
      },
    ];
  }
  if (failure.code === 'AUTH_FAILED')
    return [{ step: 'auth', status: 'fail', detail: failure.message, fix: `Log in again: ${login}` }];
  const retried = retries.length > 0 ? ` after a retry (${retries.join('; ')})` : '';
  const said = stderr.length > 0 ? `; its stderr ends: ${stderr.join(' | ')}` : '';
  return [
    { step: 'handshake', status: 'fail', detail: `${failure.code}${retried}${said}`, fix: failure.message },
  ];
}
