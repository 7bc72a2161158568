/**
 * The SSH server's one error type. Tools branch on `code`, never on message text; every message
 * says what went wrong and what to do, and `cause` keeps the library's original error.
 */

/** Every way an SSH tool call can fail, as a stable string. */
export type SshErrorCode =
  /** An argument or the aliases file is malformed. */
  | 'INVALID_ARGUMENT'
  /** No alias of that name. */
  | 'UNKNOWN_ALIAS'
  /** The aliases file cannot be read or written, or its mode lets others read it. */
  | 'ALIASES_FILE'
  /** The host presented a key other than the one `known_hosts` records: refused, always. */
  | 'HOST_KEY_MISMATCH'
  /** The host is not in `known_hosts` and nobody decided to trust it. */
  | 'HOST_KEY_UNKNOWN'
  /** The host's key is marked `@revoked` in `known_hosts`. */
  | 'HOST_KEY_REVOKED'
  /** The server refused every credential offered. */
  | 'AUTH_FAILED'
  /** A secret was asked for and the person declined, cancelled or gave nothing. */
  | 'SECRET_DECLINED'
  /** The TCP or SSH handshake did not finish in time, or the connection broke. */
  | 'CONNECT_FAILED'
  /** A command or transfer ran past its time limit. */
  | 'TIMEOUT'
  /** A stated limit was reached (pool size, transfer size, entry count, output). */
  | 'LIMIT'
  /** sudo is disabled for the alias, or refused the user or the password. */
  | 'SUDO_REFUSED'
  /** A local path leaves the local root. */
  | 'PATH_OUTSIDE_ROOT'
  /** A transfer failed on the remote side (SFTP status) or locally. */
  | 'TRANSFER_FAILED'
  /** A remote path does not exist (SFTP "no such file"). */
  | 'NOT_FOUND'
  /** The login user may not read or write a remote path (SFTP "permission denied"). */
  | 'PERMISSION_DENIED'
  /** A remote path is of the wrong kind (a folder where a file is wanted, a device, …). */
  | 'NOT_A_FILE'
  /** A file is larger than the file tools read or rewrite (`SSH_MCP_FILE_MAX`). */
  | 'FILE_TOO_LARGE'
  /** A file holds binary data (a NUL byte); the text tools do not show or edit it. */
  | 'BINARY_FILE'
  /** `old_string` is not in the file. */
  | 'NO_MATCH'
  /** `old_string` is in the file more than once and `replace_all` was not set. */
  | 'AMBIGUOUS_MATCH'
  /** The file is not the version the caller read, or changed while it was being edited. */
  | 'FILE_CHANGED'
  /** Another SFTP failure on a remote file (its status is in the message). */
  | 'SFTP_FAILED'
  /** The host lacks what a tool needs (no systemctl, no journalctl). */
  | 'NOT_SUPPORTED'
  /** A remote command the tool ran (systemctl, journalctl) failed; its output is in the result. */
  | 'COMMAND_FAILED';

/** An SSH tool failure: `code` classifies it, `message` is for people and ends with what to do. */
export class SshError extends Error {
  readonly code: SshErrorCode;

  constructor(code: SshErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SshError';
    this.code = code;
  }
}
