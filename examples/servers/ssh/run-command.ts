/**
 * `exec`: a command on the remote host, as the login user or through sudo in the alias's mode —
 * `none` (refused), `nopasswd` (`sudo -n`, fails fast when a password would be needed) or
 * `prompt` (`sudo -S`, the password asked for through elicitation, checked before the command
 * runs, remembered in memory for its lifetime and dropped when sudo refuses it).
 */
import { USER_NAME } from './aliases.js';
import { type Answers, InputNeeded, secretFrom } from './asks.js';
import { sudoCommand, sudoPasswordCheck, sudoProbe, withDeadline } from './command-line.js';
import type { ExecResult, SshConnection } from './connection.js';
import { SshError } from './errors.js';
import type { Sessions, Target } from './sessions.js';

/** What `exec` is asked to do. */
export interface CommandRequest {
  readonly command: string;
  readonly sudo: boolean;
  readonly sudoUser: string;
  readonly stdin: string | undefined;
  readonly timeoutMs: number;
}

// A shell answers 127 for "command not found" (POSIX, Shell Command Language §2.8.2).
const NOT_FOUND = 127;
const PROBE_TIMEOUT_MS = 15_000;

/** Checks a request against the limits before anything is sent. */
export function checkRequest(request: CommandRequest, sessions: Sessions): void {
  const { settings } = sessions;
  if (Buffer.byteLength(request.command) > settings.commandMaxBytes)
    throw new SshError(
      'LIMIT',
      `The command is longer than ${settings.commandMaxBytes} bytes; put it in a script and upload it.`,
    );
  if (request.stdin !== undefined && Buffer.byteLength(request.stdin) > settings.stdinMaxBytes)
    throw new SshError(
      'LIMIT',
      `stdin is larger than ${settings.stdinMaxBytes} bytes; upload the data as a file instead.`,
    );
  if (request.timeoutMs > settings.execTimeoutMaxMs)
    throw new SshError('LIMIT', `timeout_seconds may be at most ${settings.execTimeoutMaxMs / 1000}.`);
  if (!USER_NAME.test(request.sudoUser))
    throw new SshError(
      'INVALID_ARGUMENT',
      `"${request.sudoUser}" is not a user name; pass e.g. "root" or "postgres".`,
    );
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '';
}

/** Runs the request on a logged-in connection; asks for the sudo password when it must. */
export async function runCommand(
  sessions: Sessions,
  target: Target,
  connection: SshConnection,
  request: CommandRequest,
  answers: Answers,
): Promise<ExecResult> {
  const { settings } = sessions;
  const run = (command: string, stdin?: string) =>
    connection.exec(command, {
      ...(stdin !== undefined && { stdin }),
      timeoutMs: request.timeoutMs,
      maxBytes: settings.outputMaxBytes,
    });
  // The remote deadline is a second after ours, so ours fires first and the result says
  // "timed out" rather than showing `timeout`'s exit status.
  const command = withDeadline(request.command, Math.ceil(request.timeoutMs / 1000) + 1);
  if (!request.sudo) return run(command, request.stdin);

  const method = target.alias.sudo.method;
  if (method === 'none')
    throw new SshError(
      'SUDO_REFUSED',
      `sudo is disabled for ${target.label} (sudo.method "none"); run without sudo, or change the alias.`,
    );
  const probe = await connection.exec(sudoProbe(request.sudoUser), {
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: 4096,
  });
  if (probe.exitCode === NOT_FOUND)
    throw new SshError(
      'SUDO_REFUSED',
      `sudo is not installed on ${target.label}; install it there or run without sudo.`,
    );
  if (probe.exitCode === 0) return run(sudoCommand(command, request.sudoUser, 'nopasswd'), request.stdin);
  if (method === 'nopasswd')
    throw new SshError(
      'SUDO_REFUSED',
      `sudo on ${target.label} needs a password for ${request.sudoUser} (${firstLine(probe.stderr) || `exit ${probe.exitCode}`}), ` +
        'but the alias says sudo.method "nopasswd": add a NOPASSWD rule for the user there, or set sudo.method "prompt".',
    );

  const cacheKey = `sudo ${target.key}`;
  let password = sessions.sudoSecrets.get(cacheKey);
  const fromAnswer = password === undefined;
  if (password === undefined) {
    const answer = answers('sudo_password');
    if (answer.kind === 'declined')
      throw new SshError('SUDO_REFUSED', `No sudo password was given for ${target.label}; nothing was run.`);
    password = secretFrom(answer, 'password');
    if (password === undefined)
      throw new InputNeeded({
        key: 'sudo_password',
        message: `sudo password of ${target.key} (to run a command as ${request.sudoUser}). Kept in the SSH server's memory for ${settings.sudoSecretTtlMs / 1000} s, never shown or stored.`,
        field: { kind: 'secret', name: 'password', title: 'sudo password' },
      });
  }
  if (password.includes('\n'))
    throw new SshError('INVALID_ARGUMENT', 'A sudo password cannot contain a line break; call again.');
  // Checked with `true` first, so a wrong password never lets the command's own stdin be
  // read as further password attempts, and nothing runs until sudo said yes.
  const check = await connection.exec(sudoPasswordCheck(request.sudoUser), {
    stdin: `${password}\n`,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: 4096,
  });
  if (check.exitCode !== 0) {
    sessions.sudoSecrets.drop(cacheKey);
    throw new SshError(
      'SUDO_REFUSED',
      `sudo on ${target.label} refused: a wrong password, or ${target.alias.user} may not run commands as ${request.sudoUser}. Nothing was run; call again to be asked again.`,
    );
  }
  // Its lifetime runs from when it was given, not from each use.
  if (fromAnswer) sessions.sudoSecrets.set(cacheKey, password);
  return run(sudoCommand(command, request.sudoUser, 'password'), `${password}\n${request.stdin ?? ''}`);
}
