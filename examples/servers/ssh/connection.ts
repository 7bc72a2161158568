/**
 * One SSH connection (the `ssh2` library's client): opened with a host-key check that must
 * say yes before any credential is sent, credentials offered in a fixed order, and commands
 * run with a time limit and capped output. Failures come back as `SshError`s classified from
 * structured facts — our own host-key verdict, ssh2's `level` on its errors — never from text.
 */
import { type AuthenticationType, Client, type ClientChannel, type SFTPWrapper } from 'ssh2';
import { SshError } from './errors.js';

/** Credentials, in the order they are offered. */
export type Credentials =
  | {
      readonly kind: 'key';
      readonly privateKey?: string;
      readonly passphrase?: string;
      readonly agent?: string;
    }
  | { readonly kind: 'password'; readonly password: string };

/** What `openConnection` needs. `verifyHostKey` runs before authentication; an error refuses. */
export interface OpenOptions {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly credentials: Credentials;
  /** Stop after the key exchange: offer no credential (ends in `AUTH_FAILED` once the key passed). */
  readonly probe?: boolean;
  readonly timeoutMs: number;
  /** Host key algorithms to ask for first: those known_hosts already records for the host. */
  readonly preferredHostKeyTypes: readonly string[];
  readonly verifyHostKey: (key: Buffer) => SshError | undefined;
}

/** What one command did. Output past the cap is counted, not kept. */
export interface ExecResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutDropped: number;
  readonly stderrDropped: number;
  readonly timedOut: boolean;
}

// ssh2's default host key algorithm list, so the preferred ones can be moved to its front.
const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
] as const;

function hostKeyOrder(preferred: readonly string[]): string[] {
  // known_hosts records RSA keys as "ssh-rsa" whichever signature hash the server uses.
  const wanted = new Set(
    preferred.flatMap((t) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t])),
  );
  return [
    ...HOST_KEY_ALGORITHMS.filter((a) => wanted.has(a)),
    ...HOST_KEY_ALGORITHMS.filter((a) => !wanted.has(a)),
  ];
}

function authMethods(user: string, credentials: Credentials) {
  if (credentials.kind === 'password') {
    // Straight to the password: no agent or key probing that could lock an account out first.
    // Servers that take passwords only through keyboard-interactive (PAM) get it there too.
    return [
      { type: 'password' as const, username: user, password: credentials.password },
      {
        type: 'keyboard-interactive' as const,
        username: user,
        prompt: (
          _n: string,
          _i: string,
          _l: string,
          prompts: { echo?: boolean }[],
          finish: (r: string[]) => void,
        ) => finish(prompts.map((p) => (p.echo ? '' : credentials.password))),
      },
    ];
  }
  const methods: { type: AuthenticationType; username: string; [k: string]: unknown }[] = [];
  if (credentials.privateKey !== undefined)
    methods.push({
      type: 'publickey',
      username: user,
      key: credentials.privateKey,
      ...(credentials.passphrase !== undefined && { passphrase: credentials.passphrase }),
    });
  if (credentials.agent !== undefined)
    methods.push({ type: 'agent', username: user, agent: credentials.agent });
  return methods;
}

const KILL_GRACE_MS = 5000;

/**
 * Sends the KILL signal request (RFC 4254 §6.9; OpenSSH's sshd `killpg`s the session's
 * process group). ssh2's `channel.signal()` silently sends nothing once our side has sent EOF —
 * which `exec` always does, so a command reading stdin sees its end — although the request
 * does not depend on EOF; so the request is sent through the channel's protocol object
 * directly, falling back to `signal()` should that inner shape ever change.
 */
function sendKill(channel: ClientChannel): void {
  const inner = channel as unknown as {
    outgoing?: { id?: number; state?: string };
    _client?: { _protocol?: { signal?: (id: number, name: string) => void } };
  };
  const protocol = inner._client?._protocol;
  const id = inner.outgoing?.id;
  if (typeof protocol?.signal === 'function' && typeof id === 'number' && inner.outgoing?.state !== 'closed')
    protocol.signal(id, 'KILL');
  else channel.signal('KILL');
}

/** An open connection; `alive` turns false when it closes or breaks. */
export class SshConnection {
  private open = true;
  private running = 0;

  constructor(private readonly client: Client) {
    client.on('close', () => {
      this.open = false;
    });
    client.on('error', () => {
      this.open = false;
    });
  }

  get alive(): boolean {
    return this.open;
  }

  /** Whether a command or an SFTP session is open on it. */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Counts `work` as use of the connection while it runs (the pool keeps it open). */
  async using<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
    }
  }

  close(): void {
    this.open = false;
    this.client.end();
  }

  /**
   * Runs a command (through the login shell, as `ssh host cmd` does). `stdin` is written and
   * closed; at `timeoutMs` the command is sent KILL and its channel closed.
   */
  exec(
    command: string,
    options: { stdin?: string; timeoutMs: number; maxBytes: number },
  ): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      this.client.exec(command, (error, channel: ClientChannel) => {
        if (error) {
          reject(
            new SshError(
              'CONNECT_FAILED',
              'The server refused to open a channel; disconnect and try again.',
              { cause: error },
            ),
          );
          return;
        }
        const out = { chunks: [] as Buffer[], kept: 0, dropped: 0 };
        const err = { chunks: [] as Buffer[], kept: 0, dropped: 0 };
        const collect = (into: typeof out) => (chunk: Buffer) => {
          const keep = Math.min(Math.max(options.maxBytes - into.kept, 0), chunk.length);
          if (keep > 0) into.chunks.push(chunk.subarray(0, keep));
          into.kept += keep;
          into.dropped += chunk.length - keep;
        };
        channel.on('data', collect(out));
        channel.stderr.on('data', collect(err));
        let exitCode: number | null = null;
        let signal: string | null = null;
        let timedOut = false;
        channel.on('exit', (code: number | null, sig?: string) => {
          exitCode = code;
          signal = sig ?? null;
        });
        let grace: NodeJS.Timeout | undefined;
        const finish = () => {
          clearTimeout(timer);
          clearTimeout(grace);
          resolve({
            exitCode,
            signal,
            stdout: Buffer.concat(out.chunks).toString('utf8'),
            stderr: Buffer.concat(err.chunks).toString('utf8'),
            stdoutDropped: out.dropped,
            stderrDropped: err.dropped,
            timedOut,
          });
        };
        const timer = setTimeout(() => {
          timedOut = true;
          sendKill(channel);
          channel.close();
          // A server that neither honours the signal nor closes the channel: give up on the
          // whole connection (the pool drops it), which ends the remote session.
          grace = setTimeout(() => {
            this.close();
            finish();
          }, KILL_GRACE_MS);
        }, options.timeoutMs);
        channel.on('close', finish);
        channel.end(options.stdin ?? '');
      });
    });
  }

  /** An SFTP session on this connection (closed by the caller). */
  sftp(): Promise<SFTPWrapper> {
    return new Promise((resolve, reject) =>
      this.client.sftp((error, sftp) =>
        error
          ? reject(
              new SshError(
                'TRANSFER_FAILED',
                'The server offers no SFTP subsystem; enable it in sshd_config.',
                { cause: error },
              ),
            )
          : resolve(sftp),
      ),
    );
  }
}

/**
 * Opens a connection and authenticates. The host key is checked first; a refusal there
 * closes the socket before any credential leaves this machine.
 */
export function openConnection(options: OpenOptions): Promise<SshConnection> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKeyRefusal: SshError | undefined;
    let settled = false;
    const fail = (error: SshError) => {
      if (settled) return;
      settled = true;
      // destroy, not end: a peer that never finished the handshake gets no polite goodbye.
      client.destroy();
      reject(error);
    };
    client.once('ready', () => {
      if (settled) return;
      settled = true;
      resolve(new SshConnection(client));
    });
    client.on('error', (error: Error & { level?: string }) => {
      const where = `${options.user}@${options.host}:${options.port}`;
      if (hostKeyRefusal !== undefined) fail(hostKeyRefusal);
      else if (error.level === 'client-authentication')
        fail(
          new SshError(
            'AUTH_FAILED',
            `${where} refused the ${options.credentials.kind === 'password' ? 'password' : 'key'}; check the alias's user and ${options.credentials.kind === 'password' ? 'password (you will be asked again)' : 'key_path, or load the key into ssh-agent'}.`,
            { cause: error },
          ),
        );
      else if (error.level === 'client-timeout')
        fail(
          new SshError(
            'TIMEOUT',
            `${where} did not finish the SSH handshake in ${options.timeoutMs / 1000} s; check the host and port.`,
            { cause: error },
          ),
        );
      else
        fail(
          new SshError(
            'CONNECT_FAILED',
            `Cannot connect to ${where}: ${error.message}. Check the host, the port and that sshd runs there.`,
            { cause: error },
          ),
        );
    });
    client.on('close', () =>
      fail(
        hostKeyRefusal ??
          new SshError(
            'CONNECT_FAILED',
            `${options.host}:${options.port} closed the connection during login; check its sshd log.`,
          ),
      ),
    );
    const methods = options.probe ? [] : authMethods(options.user, options.credentials);
    if (methods.length === 0 && !options.probe) {
      fail(
        new SshError(
          'AUTH_FAILED',
          'No private key was found and no ssh-agent is running; set key_path on the alias, or use auth "password".',
        ),
      );
      return;
    }
    client.connect({
      host: options.host,
      port: options.port,
      username: options.user,
      readyTimeout: options.timeoutMs,
      algorithms: { serverHostKey: hostKeyOrder(options.preferredHostKeyTypes) as never },
      hostVerifier: (key: Buffer) => {
        hostKeyRefusal = options.verifyHostKey(key);
        return hostKeyRefusal === undefined;
      },
      authHandler: methods as never,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 4,
    });
  });
}
