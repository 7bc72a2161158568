import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import type { CredentialStore } from '../client/auth/credential-store.js';
import type { CallOptions, ConnectionOptions, LogEntry, ServerEvent } from '../client/connection-types.js';
import type { ToolResult } from '../client/results.js';
import type { AddressResolver } from '../client/transports/guarded-fetch.js';
import type { InvalidEntry } from '../core/config/config-file.js';
import type { GovernanceConfig } from '../core/config/governance-config.js';
import type { RootConfig, ServerConfig } from '../core/server-config.js';
import type { CatalogSnapshot } from './catalog/catalog.js';
import type { ServerTools } from './catalog/catalog-keeper.js';
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
  /**
   * Entries of configuration files that do not normalize: listed as `failed` servers with
   * their error (never started), so one mistake does not stop the others.
   */
  readonly invalidServers?: readonly InvalidEntry[];
  /** Where each of `servers` came from (a file path), by name; shown in the status. */
  readonly sources?: Readonly<Record<string, string>>;
  /** Passed to every connection (elicitation, sampling handlers…). */
  readonly connection?: Omit<
    ConnectionOptions,
    'config' | 'eraStore' | 'onLog' | 'onEvent' | 'network' | 'spawnRecorder'
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
  /**
   * Roots offered to every server whose entry has no `roots` of its own: the workspace an
   * embedding app (a coding agent) lets its servers see. Default none: servers are never told
   * the working directory (client/roots.ts says why).
   */
  readonly roots?: readonly RootConfig[];
  /**
   * The master switch: false turns MCP off for this host. No server connects; every entry is
   * kept and listed `disabled` with why (MCP_OFF), and calls to their
   * tools fail at once. The config file's top-level `"enabled"`. Default true.
   */
  readonly enabled?: boolean;
  /**
   * How the host names of servers registered at run time are resolved for the network guard
   * (governance.network), at registration and at every connect. Default: the system resolver.
   */
  readonly resolver?: AddressResolver;
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

/**
 * A server's status: the supervisor's snapshot, where the entry came from, and its tools as
 * the catalog serves them (`tools` counts only served ones; refused ones are in `rejectedTools`).
 */
export interface ServerStatus extends ServerSnapshot, ServerTools {
  readonly source: string;
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

/** Options of a resource read or a prompt get through the host: the request's, and whose it is. */
export type ContentOptions = CallOptions & {
  /** The session (or principal) the read is audited under; default `default`. */
  readonly session?: string;
};

/** Who changed the server list, for the audit: a session or principal, and the way in. */
export interface ChangeActor {
  readonly session?: string;
  /** `api`, `jsonl`, `agent`, `cli`, … */
  readonly via?: string;
}

/**
 * What a server is connected with (Host.upstreamProtocol): era and capabilities (whether its
 * requests can be relayed), and what it says about itself (`serverInfo`, `instructions`:
 * untrusted text). Empty while it is not connected.
 */
export interface UpstreamProtocol {
  readonly era?: 'modern' | 'legacy';
  readonly capabilities?: ServerCapabilities;
  /** Its `serverInfo`: name, version, and maybe a title and description. */
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
}
