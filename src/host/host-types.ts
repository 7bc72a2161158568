import type { CredentialStore } from '../client/auth/credential-store.js';
import type { ConnectionOptions, LogEntry, ServerEvent } from '../client/connection-types.js';
import type { ToolResult } from '../client/results.js';
import type { GovernanceConfig } from '../core/config/governance-config.js';
import type { ServerConfig } from '../core/server-config.js';
import type { CatalogSnapshot, RejectedTool } from './catalog/catalog.js';
import type { AskApproval } from './governance/governor.js';
import type { ServerSnapshot } from './supervisor/supervisor.js';

/** The host's public types: its options, the call hooks, server status and events. */

/** How a Host is made (`Host.create`). */
export interface HostOptions {
  /** Where the store and logs live. Default `~/.switchboard`. */
  readonly dataDir?: string;
  /** A PostgreSQL URL (`postgres://…`) for the store; default: SQLite `switchboard.db` in the data dir. */
  readonly database?: string;
  /** Start only these servers (a one-shot command needs one); default all. */
  readonly only?: readonly string[];
  /** Servers from configuration files (registrations in the store are added to them). */
  readonly servers?: readonly ServerConfig[];
  /** Where each of `servers` came from (a file path), by name; shown in the status. */
  readonly sources?: Readonly<Record<string, string>>;
  /** Passed to every connection (elicitation, sampling handlers…). */
  readonly connection?: Omit<
    ConnectionOptions,
    'config' | 'eraStore' | 'onLog' | 'onEvent' | 'spawnRecorder'
  >;
  readonly firstConnectDelaysMs?: readonly number[];
  /** Where media files are served from (the gateway mounts `mediaHandler()` there). */
  readonly mediaBaseUrl?: string;
  /** Approval mode, profile, rules and scanning (the config file's `governance` section). */
  readonly governance?: Partial<GovernanceConfig>;
  /** Who answers `ask` decisions. Default: the host's Inbox. */
  readonly askApproval?: AskApproval;
  /**
   * Where OAuth credentials live: files under `<dataDir>/credentials` (0600) by default; with a
   * PostgreSQL `database`, or `'store'`, the store, encrypted (`openStoreCredentialStore`).
   */
  readonly credentials?: CredentialStore | 'store';
  /**
   * Linux: start one small watchdog process (`sh`) that ends this host's stdio servers and
   * everything they started as soon as the host dies, SIGKILL included. Default true. Without
   * it, what a killed host left is ended when the next host starts on the same data dir.
   */
  readonly watchdog?: boolean;
}

/** What hooks learn of a call. `session` is whatever the caller passed (the agent's session). */
export interface HookCall {
  readonly name: string;
  readonly server: string;
  readonly tool: string;
  readonly session?: string;
}

/** Runs around every tool call: policy and audit plug in here. */
export interface CallHooks {
  /** May throw to refuse the call (policy); runs before anything is sent upstream. */
  before?(call: HookCall & { readonly args: Record<string, unknown> }): Promise<void> | void;
  after?(
    call: HookCall & { readonly durationMs: number; readonly result?: ToolResult; readonly error?: unknown },
  ): Promise<void> | void;
}

/** A server's status: the supervisor's snapshot, where the entry came from, and its tools the catalog refused. */
export interface ServerStatus extends ServerSnapshot {
  readonly source: string;
  readonly rejectedTools: readonly Pick<RejectedTool, 'tool' | 'reason' | 'detail'>[];
}

export type HostEvents = {
  servers: [snapshots: readonly ServerSnapshot[]];
  catalog: [snapshot: CatalogSnapshot];
  /** A tool's definition differs from the one first seen (pinned); governance decides. */
  tool_changed: [change: { server: string; tool: string; previousHash: string; hash: string }];
  event: [event: ServerEvent];
  /** A line for a server's log: its own log notifications (`source: 'server'`), stderr, lifecycle. */
  log: [entry: LogEntry];
};
