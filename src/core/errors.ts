/**
 * The one error family of Switchboard. Callers branch on `code`, never on message text.
 * Every message says what went wrong and what to do about it; `cause` keeps the original.
 */

/** Every error code Switchboard raises. Stable: part of the public API. */
export type SwitchboardErrorCode =
  | 'CONFIG_INVALID'
  | 'ENV_VAR_MISSING'
  | 'SPAWN_FAILED'
  /**
   * A sandbox was asked for and cannot be set up (bubblewrap missing, user namespaces off, a
   * granted path missing): the server is not started, never run unsandboxed. `details.reason`
   * says which (`bwrap-missing`, `namespaces-unavailable`, `path`, `platform`).
   */
  | 'SANDBOX_UNAVAILABLE'
  | 'CONNECT_FAILED'
  | 'CONNECT_TIMEOUT'
  | 'REQUEST_TIMEOUT'
  | 'REQUEST_CANCELLED'
  | 'UPSTREAM_DISCONNECTED'
  | 'UPSTREAM_HTTP'
  | 'UPSTREAM_ERROR'
  /** The server broke the protocol: a malformed answer, or a result its method does not allow. */
  | 'UPSTREAM_PROTOCOL'
  | 'PROTOCOL_VERSION_UNSUPPORTED'
  | 'NOT_CONNECTED'
  /** MCP is off for the host (the master switch, `"enabled": false`): no server connects. */
  | 'MCP_OFF'
  /**
   * The server is connecting again (or starting): what was asked of it is back when it is.
   * Retryable; `details.server` names it, `details.state` says how far it is.
   */
  | 'UPSTREAM_RECONNECTING'
  | 'NOT_FOUND'
  | 'MESSAGE_TOO_LARGE'
  /**
   * A skill file failed verification against the skill's entry (MCP Skills extension,
   * SEP-2640): `details.reason` is `digest`, `size`, `frontmatter` or `unlisted`, `details.uri`
   * the file. Its content was not used; for a `SKILL.md`, the skill was not loaded.
   */
  | 'SKILL_VERIFICATION_FAILED'
  /** A skill is over the per-skill limits (512 files, 16 MiB): it is not loaded, nothing of it is read. */
  | 'SKILL_TOO_LARGE'
  | 'TASK_FAILED'
  | 'TASK_CANCELLED'
  | 'TASK_EXPIRED'
  | 'STORAGE_FAILED'
  | 'STORAGE_MIGRATION_FAILED'
  | 'STORAGE_TOO_NEW'
  | 'CONFIG_READ_FAILED'
  | 'CONFIG_WRITE_FAILED'
  | 'INVALID_ARGUMENT'
  | 'POLICY_DENIED'
  | 'APPROVAL_DECLINED'
  | 'INBOX_FULL'
  /** An Inbox item was answered (or ended) before this answer came: it changed nothing. */
  | 'ALREADY_ANSWERED'
  /** A person must log in (OAuth) before the server can be used: `details.command` says how. */
  | 'AUTH_REQUIRED'
  /** Authorization failed or was refused for safety; `details.reason` says which check. */
  | 'AUTH_FAILED';

/** Structured details attached to some codes (HTTP status, JSON-RPC code, server name). */
export interface SwitchboardErrorDetails {
  readonly server?: string;
  readonly status?: number;
  readonly body?: string;
  readonly rpcCode?: number;
  readonly rpcData?: unknown;
  readonly [key: string]: unknown;
}

/**
 * Base class of every error Switchboard throws. `code` classifies it, `details` carries the
 * machine-readable facts, `message` is for people and ends with what to do.
 */
export class SwitchboardError extends Error {
  readonly code: SwitchboardErrorCode;
  readonly details: SwitchboardErrorDetails;

  constructor(
    code: SwitchboardErrorCode,
    message: string,
    options: { cause?: unknown; details?: SwitchboardErrorDetails } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `error` is a SwitchboardError, optionally of one of the given codes. */
export function isSwitchboardError(
  error: unknown,
  ...codes: SwitchboardErrorCode[]
): error is SwitchboardError {
  return error instanceof SwitchboardError && (codes.length === 0 || codes.includes(error.code));
}

/** Best-effort text of any thrown value, for messages. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
