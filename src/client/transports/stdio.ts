import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';
import { LineSplitter } from './line-splitter.js';
import { signalGroup, trackGroup, untrackGroup, waitForExit, waitForGroupGone } from './process-group.js';

/**
 * Our stdio transport. Written instead of the SDK's because that one signals only the direct
 * child, which shares our process group (SDK #2023): a server started through `sh -c`, or one
 * that spawns helpers, survives `close()` as an orphan. Here the server leads its own process
 * group; close ends stdin, then SIGTERMs the group, then SIGKILLs it after a grace period.
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
}

/** How the child ended, for error messages. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the process ended because we closed it. */
  readonly requested: boolean;
}

const STDERR_TAIL_LINES = 20;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private child?: ChildProcess;
  private pgid?: number;
  private closing?: Promise<void>;
  private closedNotified = false;
  private readonly stderrTail: string[] = [];
  private exit?: ExitInfo;
  /** The wait for stdin to drain, shared by every send held back meanwhile. */
  private draining: Promise<void> | undefined;
  /** stdin is corked until the check phase: messages sent meanwhile go out in one write. */
  private corked = false;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The server's process id (also its process group id), once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The server's stderr stream; already consumed line by line for the log sink. */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  /** The last lines the server wrote to stderr (for error messages). */
  get recentStderr(): readonly string[] {
    return this.stderrTail;
  }

  /** How the process exited, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started');
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(command, [...args], {
          cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          // A new process group (and session): signals to -pgid reach the whole tree.
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
      } catch (error) {
        reject(this.spawnError(error));
        return;
      }
      this.child = child;
      child.once('error', (error) => {
        if (!child.pid) {
          reject(this.spawnError(error));
          this.notifyClosed();
          return;
        }
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        this.pgid = child.pid!;
        trackGroup(this.pgid);
        this.options.onSpawn?.(this.pgid);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exit = { code, signal, requested: this.closing !== undefined };
      });
      // 'close' fires after stdio streams end: every message the server wrote has been read.
      child.once('close', () => {
        // The leader is gone; helpers it left in the group are killed now, not leaked.
        if (this.pgid !== undefined && !this.closing) {
          signalGroup(this.pgid, 'SIGKILL');
          untrackGroup(this.pgid);
        }
        this.notifyClosed();
      });
      this.wireStdout(child);
      this.wireStderr(child);
      child.stdin?.on('error', (error) => {
        // EPIPE after the server died: the exit path reports it.
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') this.onerror?.(error);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.closing || this.exit) {
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

  /** Ends stdin, then SIGTERMs and finally SIGKILLs the whole process group. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || this.pgid === undefined) {
      this.notifyClosed();
      return;
    }
    const pgid = this.pgid;
    const stdinGrace = this.options.stdinGraceMs ?? 300;
    const termGrace = this.options.termGraceMs ?? 2000;
    child.stdin?.end();
    const exited = await waitForExit(child, stdinGrace);
    // Even when the leader left on its own, helpers may remain in its group.
    if (signalGroup(pgid, 'SIGTERM') || !exited) {
      const gone =
        (await waitForExit(child, termGrace)) && (await waitForGroupGone(pgid, exited ? termGrace : 200));
      if (!gone) {
        signalGroup(pgid, 'SIGKILL');
        await waitForExit(child, 5000);
        await waitForGroupGone(pgid, 1000);
      }
    }
    untrackGroup(pgid);
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.notifyClosed();
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
    const text = line.toString('utf8');
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
