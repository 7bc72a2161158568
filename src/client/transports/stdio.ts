import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';
import { type PreparedSandbox, prepareSandbox, type SandboxRequest } from '../sandbox/sandbox-launch.js';
import { LineSplitter } from './line-splitter.js';
import { type ExitInfo, ServerProcess, type SpawnRecorder } from './server-process.js';

export type { ExitInfo, SpawnRecord, SpawnRecorder } from './server-process.js';

/**
 * Our stdio transport. Written instead of the SDK's because that one signals only the direct
 * child, which shares our process group (SDK #2023): a server started through `sh -c`, or one
 * that spawns helpers, survives `close()` as an orphan. Here the server leads its own process
 * group and session, and its whole tree is tracked (`server-process.ts`); close ends stdin,
 * then SIGTERMs the tree, then SIGKILLs it after a grace period. The connection ends as soon
 * as the spawned process exits or its stdout ends, whoever else holds the pipe.
 * stderr is never inherited: it is split into lines for the log sink.
 *
 * The `pid` and `stderr` accessors also make the SDK treat this as a stdio-shaped transport
 * (it probes `server/discover` in place, instead of spawning a second copy of the server).
 */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete child environment (already filtered and interpolated). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Called once the process is running, with its pid (= its process group id). */
  readonly onSpawn?: (pid: number) => void;
  /** Called for every stderr line of the server. */
  readonly onStderrLine?: (line: string) => void;
  /** Called for every stdout line that is not JSON-RPC (servers that print banners). */
  readonly onStdoutNoise?: (line: string) => void;
  /** Largest accepted message; larger ones are dropped and reported. Default 128 MiB. */
  readonly maxMessageBytes?: number;
  /** How long the server may take to exit after stdin closes, before SIGTERM. Default 300 ms. */
  readonly stdinGraceMs?: number;
  /** How long after SIGTERM before SIGKILL. Default 2 s. */
  readonly termGraceMs?: number;
  /** Records every process spawned and ended (a host's spawn ledger). */
  readonly spawnRecorder?: SpawnRecorder;
  /** The server's name: labels the cgroup an unsandboxed server is tracked by. */
  readonly name?: string;
  /**
   * Run the server in a sandbox (bubblewrap, `client/sandbox/`). When it cannot be set up,
   * `start()` fails with SANDBOX_UNAVAILABLE and nothing runs: never unsandboxed.
   */
  readonly sandbox?: StdioSandbox;
}

/** A stdio server's sandbox: the launch request without what the transport already has. */
export interface StdioSandbox extends Omit<SandboxRequest, 'command' | 'args' | 'env' | 'cwd'> {
  /** Called with the prepared launch before it is spawned (to log what is in force). */
  readonly onPrepared?: (prepared: PreparedSandbox) => void;
}

/**
 * Why the transport closed on its own when the exit status alone does not say it: `text`
 * completes "Server "x" disconnected: …".
 */
export interface StdioCloseReason {
  readonly kind: 'stdout-closed' | 'stdin-closed' | 'exited-stdout-held';
  readonly text: string;
}

const STDERR_TAIL_LINES = 20;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private server?: ServerProcess;
  /** The sandbox's host side (proxy sockets, cgroup), released once its process tree ended. */
  private sandboxed?: PreparedSandbox;
  private starting = false;
  private closing?: Promise<void>;
  private closedNotified = false;
  private readonly stderrTail: string[] = [];
  /** The wait for stdin to drain, shared by every send held back meanwhile. */
  private draining: Promise<void> | undefined;
  /** stdin is corked until the check phase: messages sent meanwhile go out in one write. */
  private corked = false;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The server's process id (also its process group id), once started. */
  get pid(): number | null {
    return this.server?.child.pid ?? null;
  }

  /** The server's stderr stream; already consumed line by line for the log sink. */
  get stderr(): Readable | null {
    return this.server?.child.stderr ?? null;
  }

  /** The last lines the server wrote to stderr (for error messages). */
  get recentStderr(): readonly string[] {
    return this.stderrTail;
  }

  /** How the process exited, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.server?.exit;
  }

  /** Why the transport closed on its own, where the exit status does not say it all. */
  get closeReason(): StdioCloseReason | undefined {
    const gone = this.server?.goneReason;
    const pid = this.pid;
    if (gone?.kind === 'stdout-closed') {
      return {
        kind: 'stdout-closed',
        text: `it closed its stdout while its process (pid ${pid}) was still running, so it could answer nothing more; the process was stopped`,
      };
    }
    if (gone?.kind === 'stdin-closed') {
      return {
        kind: 'stdin-closed',
        text: `it closed its stdin while its process (pid ${pid}) was still running, so it could be asked nothing more; the process was stopped`,
      };
    }
    const exit = this.exitInfo;
    if (gone?.kind !== 'exited' || !gone.stdoutHeld || !exit) return undefined;
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    // A wrapper that started the real server in the background and exited looks just so.
    const wrapper =
      exit.code === 0
        ? '. If the command is a wrapper that starts the server in the background, run the server in the foreground (`exec`)'
        : '';
    return {
      kind: 'exited-stdout-held',
      text: `its process (pid ${pid}) exited with ${how} while a process it had started still held its stdout open; what was left was stopped${wrapper}`,
    };
  }

  async start(): Promise<void> {
    if (this.server || this.starting) throw new Error('StdioTransport already started');
    this.starting = true;
    const { command, args, env, cwd, sandbox } = this.options;
    if (!sandbox) return this.spawn({ command, args, env });
    const prepared = await prepareSandbox({
      ...sandbox,
      command,
      args,
      env,
      ...(cwd !== undefined && { cwd }),
    });
    // Closed while the sandbox was being prepared: nothing may start after that.
    if (this.closing) {
      await prepared.release();
      throw new SwitchboardError(
        'UPSTREAM_DISCONNECTED',
        'The connection was closed before the server started.',
      );
    }
    this.sandboxed = prepared;
    sandbox.onPrepared?.(prepared);
    // bubblewrap changes into the working directory itself (--chdir), inside the sandbox.
    return this.spawn(prepared, { sandboxed: true }).catch(async (error: unknown) => {
      await prepared.release();
      throw error;
    });
  }

  private spawn(
    launch: {
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
    },
    how: { readonly sandboxed?: boolean } = {},
  ): Promise<void> {
    const { command, args, env } = launch;
    const cwd = how.sandboxed ? undefined : this.options.cwd;
    return new Promise((resolve, reject) => {
      let server: ServerProcess;
      try {
        server = new ServerProcess({
          command,
          args,
          env,
          ...(cwd !== undefined && { cwd }),
          stdinGraceMs: this.options.stdinGraceMs ?? 300,
          termGraceMs: this.options.termGraceMs ?? 2000,
          ...(this.options.spawnRecorder && { recorder: this.options.spawnRecorder }),
          // A sandbox's PID namespace holds its tree; an unsandboxed tree gets a cgroup.
          ...(!how.sandboxed && { track: { name: this.options.name ?? '' } }),
        });
      } catch (error) {
        reject(this.spawnError(error));
        return;
      }
      this.server = server;
      const child = server.child;
      child.once('error', (error) => {
        if (!child.pid) {
          reject(this.spawnError(error));
          this.notifyClosed();
          return;
        }
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        this.options.onSpawn?.(child.pid!);
        resolve();
      });
      // The server exited (what it wrote is read by now) or closed its stdout: pending
      // requests fail at once, whoever else still holds the pipe. Its sandbox's host side goes
      // once the tree is gone.
      server.ongone = () => {
        this.notifyClosed();
        if (this.sandboxed) void server.stop().then(() => this.sandboxed?.release());
      };
      this.wireStdout(child);
      this.wireStderr(child);
      child.stdin?.on('error', (error) => {
        // EPIPE: the server died or closed its stdin; ServerProcess ends the connection either way.
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') this.onerror?.(error);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server?.child.stdin;
    if (!stdin || stdin.destroyed || this.closing || this.server?.exit || this.server?.goneReason) {
      throw new SwitchboardError(
        'UPSTREAM_DISCONNECTED',
        'The server process is not running; reconnect to restart it.',
      );
    }
    if (!this.corked) {
      this.corked = true;
      stdin.cork();
      setImmediate(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    const ok = stdin.write(`${JSON.stringify(message)}\n`);
    if (!ok) await this.drained(stdin);
  }

  /**
   * Until the server has read what waits in its stdin (or it closed). One wait for every send
   * held back at once: many concurrent calls would otherwise each add listeners of their own.
   */
  private drained(stdin: NodeJS.WritableStream): Promise<void> {
    this.draining ??= new Promise<void>((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.draining = undefined;
        resolve();
      };
      stdin.once('drain', done);
      stdin.once('close', done);
    });
    return this.draining;
  }

  /** Ends stdin, then SIGTERMs and finally SIGKILLs the server's whole tree. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /**
   * Pending requests fail as close begins, not when the process is gone: a server that
   * ignores SIGTERM takes the whole grace period to stop, and close() promises that what
   * waits on it fails at once. close() itself still resolves only once the tree is ended.
   */
  private async shutdown(): Promise<void> {
    this.notifyClosed();
    await this.server?.stop();
    await this.sandboxed?.release();
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
  }

  private wireStdout(child: ChildProcess): void {
    const splitter = new LineSplitter({
      maxLineBytes: this.options.maxMessageBytes ?? 128 * 1024 * 1024,
      onLine: (line) => this.handleLine(line),
      onOversize: (bytes) =>
        this.onerror?.(
          new SwitchboardError(
            'MESSAGE_TOO_LARGE',
            `The server sent a message of more than ${bytes} bytes; it was dropped. Raise maxMessageBytes if this server really sends such messages.`,
          ),
        ),
    });
    child.stdout?.on('data', (chunk: Buffer) => splitter.push(chunk));
  }

  private handleLine(line: Buffer): void {
    // Closed: what a stopping server still writes answers nothing (its requests failed).
    if (this.closedNotified) return;
    // A UTF-8 byte order mark (which some runtimes write before their first output) is not
    // part of the message; JSON.parse would take the line for noise and lose the handshake.
    const decoded = line.toString('utf8');
    const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.options.onStdoutNoise?.(text.length > 500 ? `${text.slice(0, 500)}…` : text);
      return;
    }
    if (
      typeof message !== 'object' ||
      message === null ||
      (message as { jsonrpc?: unknown }).jsonrpc !== '2.0'
    ) {
      this.options.onStdoutNoise?.(text.length > 500 ? `${text.slice(0, 500)}…` : text);
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  private wireStderr(child: ChildProcess): void {
    const splitter = new LineSplitter({
      maxLineBytes: 64 * 1024,
      onLine: (line) => {
        const text = line.toString('utf8');
        this.stderrTail.push(text);
        if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
        this.options.onStderrLine?.(text);
      },
      onOversize: () => this.options.onStderrLine?.('[a stderr line over 64 KiB was dropped]'),
    });
    child.stderr?.on('data', (chunk: Buffer) => splitter.push(chunk));
  }

  private spawnError(error: unknown): SwitchboardError {
    const code = (error as NodeJS.ErrnoException).code;
    const { command } = this.options;
    const hint =
      code === 'ENOENT'
        ? `"${command}" was not found. Check that it is installed and on PATH, or give its full path.`
        : code === 'EACCES'
          ? `"${command}" is not executable. Check its permissions.`
          : `Could not start "${command}": ${(error as Error).message}.`;
    return new SwitchboardError('SPAWN_FAILED', hint, { cause: error, details: { command, errno: code } });
  }
}
