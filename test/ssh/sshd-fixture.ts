/**
 * A real OpenSSH server for the SSH example server's tests: Debian's `sshd`, started on
 * 127.0.0.1 on a free port with its own host key, sshd_config and authorized keys in a temp
 * folder, in the foreground (`-D -e`) so it is stopped with its process. Key logins go to the
 * current user with a throwaway key. Password logins and sudo need a user with a password:
 * when running as root with `useradd`, a throwaway user is created (a random name and
 * password, a home in the temp folder, a sudoers rule that always asks for the password) and
 * removed on stop; otherwise `testUser` is undefined and those tests say they are skipped.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((p) => existsSync(p));
export const SUDO = ['/usr/bin/sudo', '/bin/sudo'].find((p) => existsSync(p));
const USERADD = ['/usr/sbin/useradd', '/sbin/useradd'].find((p) => existsSync(p));

/** Why a part of the tests cannot run here, or undefined when it can. */
export function missing(): string | undefined {
  if (SSHD === undefined) return 'sshd is not installed (apt-get install openssh-server)';
  return undefined;
}

/** A throwaway login with a password. */
export interface TestUser {
  readonly name: string;
  readonly password: string;
  readonly home: string;
}

/** A running sshd and what a client needs to reach it. */
export interface Sshd {
  readonly port: number;
  readonly dir: string;
  /** The current user, who logs in with `clientKey`. */
  readonly user: string;
  readonly clientKey: string;
  readonly hostKeyPublic: string;
  readonly testUser: TestUser | undefined;
  /** Why there is no test user. */
  readonly noTestUser: string | undefined;
  /** Waits (bounded) until sshd's log has a line matching `pattern` after `from` characters. */
  waitForLog(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** How much log there is so far (a `from` for `waitForLog`). */
  logLength(): number;
  /** The log written since `from`. */
  logSince(from: number): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function keygen(path: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'switchboard-test', '-f', path]);
}

/** sudo's PATH on Debian (secure_path in /etc/sudoers); a session's PATH is built on it. */
export const SECURE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

async function createTestUser(dir: string, path: string | undefined): Promise<TestUser | string> {
  if (process.getuid?.() !== 0) return 'not running as root, so no throwaway user can be created';
  if (USERADD === undefined) return 'useradd is not available';
  const name = `sbssh${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const home = join(dir, 'home');
  await mkdir(home, { mode: 0o755 });
  execFileSync(USERADD, ['--no-create-home', '--home-dir', home, '--shell', '/bin/sh', '--user-group', name]);
  execFileSync('chpasswd', { input: `${name}:${password}\n` });
  execFileSync('chown', [`${name}:${name}`, home]);
  if (SUDO !== undefined) {
    // Asks for the password every time (no timestamp), so each test sees sudo ask.
    // With a PATH of its own (fake programs first), sudo uses it too, for this user only.
    const securePath = path === undefined ? '' : `, secure_path="${path}"`;
    const rule = `Defaults:${name} !lecture, timestamp_timeout=0${securePath}\n${name} ALL=(ALL:ALL) ALL\n`;
    const file = join('/etc/sudoers.d', name);
    await writeFile(`${file}.tmp`, rule, { mode: 0o440 });
    execFileSync('visudo', ['-cqf', `${file}.tmp`]);
    execFileSync('mv', [`${file}.tmp`, file]);
  }
  return { name, password, home };
}

function removeTestUser(user: TestUser): void {
  try {
    execFileSync('userdel', [user.name], { stdio: 'ignore' });
  } catch {
    // Already gone.
  }
  if (SUDO !== undefined) execFileSync('rm', ['-f', join('/etc/sudoers.d', user.name)]);
}

/**
 * Starts sshd and waits for "Server listening"; `hostKeyFrom` replaces the generated host key.
 * `path` is the PATH of every session (sshd's SetEnv) and of the test user's sudo, so programs
 * placed first on it stand in for the system's (a fake systemctl).
 */
export async function startSshd(
  options: { dir?: string; hostKeyFrom?: string; withUser?: boolean; path?: string } = {},
): Promise<Sshd> {
  if (SSHD === undefined) throw new Error(missing());
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'sb-sshd-')));
  await chmod(dir, 0o755);
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  if (options.hostKeyFrom !== undefined) {
    await writeFile(hostKey, await readFile(options.hostKeyFrom), { mode: 0o600 });
    await writeFile(`${hostKey}.pub`, await readFile(`${options.hostKeyFrom}.pub`));
  } else if (!existsSync(hostKey)) keygen(hostKey);
  const clientKey = join(dir, 'client_key');
  if (!existsSync(clientKey)) keygen(clientKey);
  const user = userInfo().username;
  await mkdir(join(dir, 'authorized'), { recursive: true });
  await writeFile(join(dir, 'authorized', user), await readFile(`${clientKey}.pub`));
  const created = options.withUser === false ? 'not asked for' : await createTestUser(dir, options.path);
  const testUser = typeof created === 'string' ? undefined : created;
  // CI sets this: there, a skipped password or sudo test would hide a missing setup step.
  if (testUser === undefined && options.withUser !== false && process.env.SWITCHBOARD_REQUIRE_SSH === '1')
    throw new Error(`SWITCHBOARD_REQUIRE_SSH=1 but no throwaway login can be made: ${created}`);
  // sshd refuses to start without its privilege-separation folder (Debian creates it at boot).
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }).catch(() => undefined);

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const config = join(dir, 'sshd_config');
    await writeFile(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized')}/%u`,
        'StrictModes no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication yes',
        'KbdInteractiveAuthentication no',
        // Password checked against /etc/shadow by sshd itself: no PAM session modules that
        // a container may not support.
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        `AllowUsers ${[user, testUser?.name].filter(Boolean).join(' ')}`,
        'Subsystem sftp internal-sftp',
        'MaxStartups 64',
        'LoginGraceTime 30',
        'LogLevel VERBOSE',
        ...(options.path === undefined ? [] : [`SetEnv PATH=${options.path}`]),
        '',
      ].join('\n'),
    );
    const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const log: string[] = [];
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        log.push(chunk.toString());
        if (log.join('').includes('Server listening on')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!ready) {
      child.kill('SIGKILL');
      if (attempt < 3) continue;
      if (testUser) removeTestUser(testUser);
      throw new Error(`sshd did not start: ${log.join('')}`);
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const waiters = new Set<() => void>();
    child.stderr!.on('data', () => {
      for (const wake of waiters) wake();
    });
    const waitForLog = (pattern: RegExp, { from = 0, timeoutMs = 20_000 } = {}) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const line = log
            .join('')
            .slice(from)
            .split('\n')
            .find((l) => pattern.test(l));
          if (line === undefined) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(line);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(`sshd never logged ${pattern} in ${timeoutMs} ms; log:\n${log.join('').slice(from)}`),
          );
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    return {
      port,
      dir,
      user,
      clientKey,
      hostKeyPublic: await readFile(`${hostKey}.pub`, 'utf8'),
      testUser,
      noTestUser: typeof created === 'string' ? created : undefined,
      waitForLog,
      logLength: () => log.join('').length,
      logSince: (from: number) => log.join('').slice(from),
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
        if (testUser) removeTestUser(testUser);
        if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
      },
    };
  }
}
