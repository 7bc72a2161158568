/**
 * The SSH server's settings: where its files are, how long pooled connections and remembered
 * secrets live, and every limit, read once from the environment at start. A malformed value
 * stops the server with a message naming the variable, never a silent default.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Every setting, after defaults. Durations in milliseconds, sizes in bytes. */
export interface SshSettings {
  /** The aliases file (JSON, mode 0600, no secrets). */
  readonly aliasesFile: string;
  /** OpenSSH `known_hosts` checked strictly and appended to on a first-use decision. */
  readonly knownHostsFile: string;
  /** Local paths of upload/download must resolve (symlinks too) inside this folder. */
  readonly localRoot: string;
  /** Private keys tried for `auth: "key"` when an alias names none, in this order. */
  readonly defaultKeys: readonly string[];
  /** ssh-agent socket, when one is running. */
  readonly agentSocket: string | undefined;
  /** Non-interactive passphrase for encrypted keys (overrides elicitation). */
  readonly keyPassphrase: string | undefined;
  /** An idle pooled connection is closed this long after its last use. */
  readonly poolTtlMs: number;
  /** At most this many connections are pooled at once. */
  readonly poolMax: number;
  /** A login password or key passphrase given through elicitation is remembered this long. */
  readonly loginSecretTtlMs: number;
  /** A sudo password given through elicitation is remembered this long. */
  readonly sudoSecretTtlMs: number;
  /** A person has this long to answer one question (host key, password) in a 2025 session. */
  readonly askTimeoutMs: number;
  /** TCP connect + SSH handshake + authentication must finish within this. */
  readonly connectTimeoutMs: number;
  /** Default and ceiling of a command's run time. */
  readonly execTimeoutMs: number;
  readonly execTimeoutMaxMs: number;
  /** stdout and stderr of a command are each kept up to this many bytes. */
  readonly outputMaxBytes: number;
  /** A command line, and a command's stdin, are refused above these sizes. */
  readonly commandMaxBytes: number;
  readonly stdinMaxBytes: number;
  /** One upload or download moves at most this many bytes and entries, this deep. */
  readonly transferMaxBytes: number;
  readonly transferMaxEntries: number;
  readonly transferMaxDepth: number;
  /** A whole upload or download must finish within this. */
  readonly transferTimeoutMs: number;
  /**
   * The file tools: the largest file `edit_file`/`replace_lines` rewrite, `grep_files` reads,
   * and how far into a file `read_file` reads to reach the lines asked for.
   */
  readonly fileMaxBytes: number;
  /** One `grep_files` reads at most this many files and bytes. */
  readonly grepMaxFiles: number;
  readonly grepMaxBytes: number;
  /** One file tool call (listing, search, read, edit) must finish within this. */
  readonly fsTimeoutMs: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The defaults, with the documented lifetimes: 300 s for the pool and for both secret caches. */
export const DEFAULTS = {
  poolTtlSeconds: 300,
  poolMax: 8,
  loginSecretTtlSeconds: 300,
  sudoSecretTtlSeconds: 300,
  askTimeoutSeconds: 300,
  connectTimeoutSeconds: 20,
  execTimeoutSeconds: 60,
  execTimeoutMaxSeconds: 600,
  outputMaxBytes: 256 * KiB,
  commandMaxBytes: 64 * KiB,
  stdinMaxBytes: 1 * MiB,
  transferMaxBytes: 512 * MiB,
  transferMaxEntries: 10_000,
  transferMaxDepth: 32,
  transferTimeoutSeconds: 600,
  fileMaxBytes: 10 * MiB,
  grepMaxFiles: 5_000,
  grepMaxBytes: 64 * MiB,
  fsTimeoutSeconds: 60,
} as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(
      `${name}=${JSON.stringify(raw)} is not a whole number from ${min} to ${max}; fix or unset it.`,
    );
  return value;
}

/** Reads the settings from `env` (the process environment by default). Throws on a bad value. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): SshSettings {
  const home = env.HOME || homedir();
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  const seconds = (name: string, fallback: number, max = 86_400) =>
    integer(env, name, fallback, 1, max) * 1000;
  const execTimeoutMaxMs = seconds('SSH_MCP_EXEC_TIMEOUT_MAX', DEFAULTS.execTimeoutMaxSeconds);
  const execTimeoutMs = seconds('SSH_MCP_EXEC_TIMEOUT', DEFAULTS.execTimeoutSeconds);
  if (execTimeoutMs > execTimeoutMaxMs)
    throw new Error(
      'SSH_MCP_EXEC_TIMEOUT is above SSH_MCP_EXEC_TIMEOUT_MAX; lower the first or raise the second.',
    );
  return {
    aliasesFile: resolve(env.SSH_MCP_ALIASES || join(config, 'switchboard', 'ssh-aliases.json')),
    knownHostsFile: resolve(env.SSH_MCP_KNOWN_HOSTS || join(home, '.ssh', 'known_hosts')),
    localRoot: resolve(env.SSH_MCP_LOCAL_ROOT || process.cwd()),
    defaultKeys: ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((name) => join(home, '.ssh', name)),
    agentSocket: env.SSH_AUTH_SOCK || undefined,
    keyPassphrase: env.SSH_MCP_KEY_PASSPHRASE || undefined,
    poolTtlMs: seconds('SSH_MCP_POOL_TTL', DEFAULTS.poolTtlSeconds),
    poolMax: integer(env, 'SSH_MCP_POOL_MAX', DEFAULTS.poolMax, 1, 256),
    loginSecretTtlMs: seconds('SSH_MCP_LOGIN_PW_TTL', DEFAULTS.loginSecretTtlSeconds),
    sudoSecretTtlMs: seconds('SSH_MCP_SUDO_PW_TTL', DEFAULTS.sudoSecretTtlSeconds),
    askTimeoutMs: seconds('SSH_MCP_ASK_TIMEOUT', DEFAULTS.askTimeoutSeconds, 3600),
    connectTimeoutMs: seconds('SSH_MCP_CONNECT_TIMEOUT', DEFAULTS.connectTimeoutSeconds, 600),
    execTimeoutMs,
    execTimeoutMaxMs,
    outputMaxBytes: integer(env, 'SSH_MCP_OUTPUT_MAX', DEFAULTS.outputMaxBytes, KiB, 64 * MiB),
    commandMaxBytes: DEFAULTS.commandMaxBytes,
    stdinMaxBytes: DEFAULTS.stdinMaxBytes,
    transferMaxBytes: integer(env, 'SSH_MCP_TRANSFER_MAX', DEFAULTS.transferMaxBytes, 1, 64 * 1024 * MiB),
    transferMaxEntries: DEFAULTS.transferMaxEntries,
    transferMaxDepth: DEFAULTS.transferMaxDepth,
    transferTimeoutMs: seconds('SSH_MCP_TRANSFER_TIMEOUT', DEFAULTS.transferTimeoutSeconds),
    fileMaxBytes: integer(env, 'SSH_MCP_FILE_MAX', DEFAULTS.fileMaxBytes, KiB, 1024 * MiB),
    grepMaxFiles: integer(env, 'SSH_MCP_GREP_MAX_FILES', DEFAULTS.grepMaxFiles, 1, 1_000_000),
    grepMaxBytes: integer(env, 'SSH_MCP_GREP_MAX_BYTES', DEFAULTS.grepMaxBytes, KiB, 64 * 1024 * MiB),
    fsTimeoutMs: seconds('SSH_MCP_FS_TIMEOUT', DEFAULTS.fsTimeoutSeconds, 3600),
  };
}
