/**
 * The command lines `exec` sends, built in one place: POSIX shell quoting, the remote deadline,
 * and the ways sudo runs. `-n` never prompts, so a host without a NOPASSWD rule fails at once instead of
 * hanging a channel; `-S -k -p ''` reads the password from stdin, and `-k` makes sudo read it
 * every time, so the first line of stdin is always taken by sudo and never reaches the command.
 */

/** Quotes a string for a POSIX shell: one single-quoted word, `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `sudo -n -u USER -- true`: exits 0 exactly when USER can be reached without a password. */
export function sudoProbe(user: string): string {
  return `sudo -n -u ${shellQuote(user)} -- true`;
}

/** `sudo -S -k -p '' -u USER -- true`: checks a password given on stdin, running nothing. */
export function sudoPasswordCheck(user: string): string {
  return `sudo -S -k -p '' -u ${shellQuote(user)} -- true`;
}

/** How to run `command` as `user`: without a password (`-n`) or with one on stdin (`-S`). */
export function sudoCommand(command: string, user: string, mode: 'nopasswd' | 'password'): string {
  const flags = mode === 'nopasswd' ? '-n' : "-S -k -p ''";
  return `sudo ${flags} -u ${shellQuote(user)} -- sh -c ${shellQuote(command)}`;
}

/**
 * Runs `command` under coreutils `timeout` where the host has it, so the remote side kills it
 * (its whole process group) at the deadline even when sshd refuses signal requests — as
 * OpenSSH does for sessions without privilege separation, root logins among them. Hosts
 * without `timeout` run it plainly; the client's own deadline still ends the call then.
 */
export function withDeadline(command: string, seconds: number): string {
  const inner = shellQuote(command);
  return `if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL ${seconds} sh -c ${inner}; else exec sh -c ${inner}; fi`;
}
