import type { Implementation, LoggingLevel, Progress } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../core/errors.js';
import type { RootConfig, ServerConfig } from '../core/server-config.js';
import type { CredentialStore } from './auth/credential-store.js';
import type { AuthorizationHandler } from './auth/oauth-session.js';
import type { EraVerdictStore } from './era.js';
import type { ListKind, ListSnapshot } from './list-cache.js';
import type { SandboxNetOptions } from './sandbox/sandbox-net.js';
import type { ElicitationHandler, RootsHandler, SamplingHandler } from './server-requests.js';
import type { TaskInfo } from './task-runner.js';
import type { NetworkGuard } from './transports/guarded-fetch.js';
import type { SpawnRecorder } from './transports/stdio.js';

/** The public types of a Connection: its options, states, events and call options. */

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed';

/** One line for the server's log. `source` says where it came from. */
export interface LogEntry {
  readonly server: string;
  readonly source: 'stderr' | 'stdout' | 'server' | 'lifecycle';
  readonly level: string;
  readonly text: string;
  readonly at: Date;
  readonly logger?: string;
}

/** A server notification that is not logging or a list change (e.g. `event/new_email`). */
export interface ServerEvent {
  readonly server: string;
  readonly method: string;
  readonly params: unknown;
  readonly receivedAt: Date;
}

export type ConnectionEvents = {
  state: [state: ConnectionState, error?: SwitchboardError];
  /** A list changed on the server; `list` is the refreshed one (undefined if refetching failed). */
  listChanged: [kind: ListKind, list: ListSnapshot<unknown> | undefined];
  disconnected: [error: SwitchboardError];
};

export interface ConnectionOptions {
  readonly config: ServerConfig;
  readonly clientInfo?: Implementation;
  /** Variables for `${VAR}` interpolation. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Roots offered to a server whose entry has none (an embedding app's workspace, say);
   * default none. Never the working directory (roots.ts says why).
   */
  readonly defaultRoots?: readonly RootConfig[];
  readonly onLog?: (entry: LogEntry) => void;
  readonly onEvent?: (event: ServerEvent) => void;
  /** Answers elicitations; the default declines. */
  readonly elicitation?: ElicitationHandler;
  /** Answers sampling requests; without one the capability is not declared. */
  readonly sampling?: SamplingHandler;
  /** Answers `roots/list` (default: the entry's roots, else `defaultRoots`, else none). */
  readonly roots?: RootsHandler;
  readonly eraStore?: EraVerdictStore;
  /** Most pages followed per list before reporting it truncated. Default 50. */
  readonly listPageCap?: number;
  /**
   * Least severe server log level wanted. 2026-07-28 servers send logs only when a request
   * asks (per-request `_meta`), so it is sent with every request there (default "info"); on
   * legacy connections it is sent once with `logging/setLevel` when set explicitly.
   */
  readonly logLevel?: LoggingLevel;
  /**
   * Relayed 2026-07-28 requests over stdio skip the SDK client's request machinery, answers
   * decoded by the SDK's own codec (direct-requests.ts). Default true; false for comparing.
   */
  readonly directRequests?: boolean;
  /** Probe timeout for `server/discover` on stdio; default 10 s. */
  readonly probeTimeoutMs?: number;
  /** Where OAuth credentials of `oauth` entries live. Default: in memory, for this process. */
  readonly credentials?: CredentialStore;
  /**
   * Shows an authorization URL when a server needs a login. Without one, such a connect fails
   * AUTH_REQUIRED at once (and starts no login, so one under way elsewhere is left alone).
   */
  readonly onAuthorizationUrl?: AuthorizationHandler;
  /**
   * Where an HTTP server's requests go (MCP and OAuth alike): a guarded network connects only
   * where the host's network policy allows (transports/guarded-fetch.ts). The host sets one for
   * servers registered at run time; unset (config-file servers), the global fetch.
   */
  readonly network?: NetworkGuard;
  /**
   * Records every stdio server process spawned and ended, so they can be ended after this
   * process died without doing so (the host's spawn ledger). Without one, stdio servers are
   * still ended with the connection, and when this process exits.
   */
  readonly spawnRecorder?: SpawnRecorder;
  /**
   * Where sandboxed stdio servers (entries with a `sandbox` profile) keep their state
   * directories, `<sandboxDir>/<name>`; the host's is `<dataDir>/sandbox`. Default
   * `~/.switchboard/sandbox`.
   */
  readonly sandboxDir?: string;
  /** Where bubblewrap is looked for (default: PATH, /usr/bin, /bin). */
  readonly bwrapDirs?: readonly string[];
  /**
   * How a sandbox with a filtered network (`sandbox.network` "loopback" or `{ loopback, hosts }`)
   * has its destinations judged: the judge (policy/sandbox-destination.ts, which the host
   * passes) and the resolver of names. Without it such a sandbox does not start.
   */
  readonly sandboxNetwork?: Pick<SandboxNetOptions, 'judge' | 'resolve'>;
  /**
   * Declare the MCP Apps extension (`io.modelcontextprotocol/ui`) to the server: the embedding
   * app renders tool views (the dashboard, a gateway's extension-aware clients). Default off,
   * since servers may then offer views, and app-only tools, that a host without a renderer
   * has no use for (docs/apps.md).
   */
  readonly apps?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  /** Overrides the server's request timeout for this call, ms. */
  readonly timeoutMs?: number;
}

/** Options of a tool call. */
export interface ToolCallOptions extends CallOptions {
  /**
   * Run the call as an MCP task when the server and tool support it (2025-11-25 tasks, or the
   * 2026-07-28 Tasks extension): the call returns at once server-side and is polled to its end.
   * A tool whose `taskSupport` is `required` always runs as a task. `ttlMs` is asked for in the
   * 2025-11-25 era (the extension lets the server choose).
   */
  readonly task?: boolean | { readonly ttlMs?: number };
  /** Status changes of the task, when the call runs as one. */
  readonly onTaskStatus?: (task: TaskInfo) => void;
}
