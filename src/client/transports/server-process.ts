import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { SandboxCgroup } from '../cgroups/cgroup-limits.js';
import { waitForExit } from './process-group.js';
import { procfsAvailable, readProcess } from './process-table.js';
import { TREE_MARK_VAR } from './process-tree.js';
import { ProcessTree, trackTree, untrackTree } from './server-tree.js';
import { trackedLaunch } from './tracked-launch.js';

/**
 * One stdio server's process and everything it starts: spawned as the leader of its own
 * process group and session, with a marker in its environment that its whole tree inherits
 * (`process-tree.ts`). **The server is the process we spawned.** When it exits, its
 * connection ends, even while a process it started keeps its stdout open (a helper, a
 * daemon, the real server behind a wrapper that put it in the background): what it wrote
 * before exiting is read first, then the rest of its tree is killed. A server that closes its
 * stdout, or its stdin (seen as EPIPE on the next write), but lives on can answer nothing more:
 * its connection ends and it is stopped.
 */

/** A stdio server process as a host's ledger records it (`SpawnRecorder`). */
export interface SpawnRecord {
  readonly pid: number;
  /** Start time (clock ticks after boot, `/proc/<pid>/stat` field 22); undefined without procfs. */
  readonly startTime?: number;
  /** The value of `SWITCHBOARD_PROCESS_TREE` its tree inherits. */
  readonly mark: string;
  /** Command and arguments as spawned. */
  readonly command: readonly string[];
}

/**
 * Who records the stdio server processes a connection starts, so that another process can end
 * them if this one dies without doing so (a host's spawn ledger). Every server's marker begins
 * with `markPrefix` (which must end in `/`), so all trees of one recorder are found at once.
 */
export interface SpawnRecorder {
  readonly markPrefix: string;
  /** The server process runs (called right after spawn). */
  spawned(record: SpawnRecord): void;
  /** Its whole tree is gone; not called when it could not be ended. */
  ended(record: SpawnRecord): void;
}

/** How a server's connection ended without anyone closing it. */
export type ServerGone =
  /** The spawned process exited; `stdoutHeld`: a process it started still held its stdout. */
  | { readonly kind: 'exited'; readonly stdoutHeld: boolean }
  /** Its stdout reached its end while the process lived on; the process is being stopped. */
  | { readonly kind: 'stdout-closed' }
  /** Its stdin was closed (a write failed with EPIPE) while the process lived on; it is being stopped. */
  | { readonly kind: 'stdin-closed' };

/** How the child ended, for error messages. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the process ended because we closed it. */
  readonly requested: boolean;
}

export interface ServerProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stdinGraceMs: number;
  readonly termGraceMs: number;
  readonly recorder?: SpawnRecorder;
  /**
   * Start the server in a cgroup of its own where one can be made (`tracked-launch.ts`), by
   * which its whole tree is found whatever it does; the name labels the cgroup. Not for a
   * sandboxed launch, whose PID namespace already holds its tree.
   */
  readonly track?: { readonly name: string };
}

/** Markers of trees spawned without a recorder: one prefix per process of ours. */
const OWN_MARK_PREFIX = `${randomBytes(8).toString('hex')}/`;
/** After the leader died, how long output may keep coming before the connection ends anyway. */
const DRAIN_MAX_MS = 500;
/** After stdout ended (or stdin broke), how long to wait for the exit that usually follows at once. */
const STDOUT_EOF_GRACE_MS = 50;
/** SIGKILL rounds give up after this; the tree then stays recorded (and tracked) for later. */
const KILL_MS = 5000;

export class ServerProcess {
  readonly child: ChildProcess;
  /** Called once when nothing more can come from the server (see `ServerGone`). */
  ongone?: (gone: ServerGone) => void;
  private tree?: ProcessTree;
  private record?: SpawnRecord;
  private exitInfo?: ExitInfo;
  private stopping?: Promise<void>;
  private gone?: ServerGone;
  /** Chunks read from stdout and stderr: the drain after an exit waits for it to stand still. */
  private reads = 0;
  /** The tracking cgroup the server was started in, if one could be made. */
  private readonly cgroup?: SandboxCgroup;
  private stdoutEnded = false;
  private stderrEnded = false;

  /** Spawns the server (throws as `spawn` does; a missing command comes as the child's 'error'). */
  constructor(private readonly options: ServerProcessOptions) {
    const { command, args, env, cwd, recorder } = options;
    const mark = `${recorder?.markPrefix ?? OWN_MARK_PREFIX}${randomBytes(12).toString('hex')}`;
    const tracked =
      options.track &&
      trackedLaunch({ name: options.track.name, command, args, env, ...(cwd !== undefined && { cwd }) });
    this.cgroup = tracked?.cgroup;
    try {
      this.child = spawn(tracked?.command ?? command, [...(tracked?.args ?? args)], {
        cwd,
        env: { ...env, [TREE_MARK_VAR]: mark },
        stdio: ['pipe', 'pipe', 'pipe'],
        // A new session and process group: signals to -pgid reach what did not leave it.
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
    } catch (error) {
      void this.cgroup?.remove();
      throw error;
    }
    const child = this.child;
    // The pid is there as soon as spawn returns (the program is already exec'd): record it now.
    if (child.pid !== undefined) this.started(child.pid, mark);
    child.stdout?.on('data', () => this.reads++);
    child.stderr?.on('data', () => this.reads++);
    child.stdout?.once('end', () => {
      this.stdoutEnded = true;
      void this.closedWhileAlive('stdout-closed');
    });
    child.stderr?.once('end', () => {
      this.stderrEnded = true;
    });
    // EPIPE: nothing reads the server's stdin any more. Usually it died (its exit follows);
    // a server that closed its stdin and lives on would leave every request unanswered.
    child.stdin?.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') void this.closedWhileAlive('stdin-closed');
    });
    child.once('exit', (code, signal) => {
      this.exitInfo = { code, signal, requested: this.stopping !== undefined };
      if (!this.stopping) void this.died();
    });
  }

  /** How the process exited, once it has. */
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** Why the connection ended on its own, once it has. */
  get goneReason(): ServerGone | undefined {
    return this.gone;
  }

  /**
   * Ends the server and its whole tree: stdin closed, then SIGTERM, then SIGKILL after the
   * grace periods. Idempotent; resolves once the tree is gone (or could not be ended).
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private started(pid: number, mark: string): void {
    const startTime = procfsAvailable() ? readProcess(pid)?.startTime : undefined;
    const roots = startTime === undefined ? [] : [{ pid, startTime }];
    const query =
      startTime === undefined ? undefined : { roots, mark: { value: mark }, notBefore: startTime };
    this.tree = new ProcessTree(query, pid, this.cgroup?.procs);
    trackTree(this.tree);
    const { command, args, recorder } = this.options;
    this.record = { pid, ...(startTime !== undefined && { startTime }), mark, command: [command, ...args] };
    recorder?.spawned(this.record);
  }

  /** The leader exited on its own: read what it left in the pipes, end the connection, kill the rest. */
  private async died(): Promise<void> {
    await this.drain();
    // Reaping first (it yields before its scans), so the connection closing now finds it under way.
    this.stopping ??= this.reap();
    this.end({ kind: 'exited', stdoutHeld: !this.stdoutEnded });
  }

  /**
   * Reads what the dead server wrote before it died. Its output is all in the pipes by now, but
   * is read only in the event loop's poll phase, which may come after the exit was seen; a
   * helper holding the pipe means no end-of-stream will say it is all read. So: until both
   * streams ended, or a poll phase read nothing (two check phases apart, one poll phase runs;
   * pipes are level-triggered, so anything waiting is read in it), bounded in time for a
   * helper that keeps writing.
   */
  private async drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_MAX_MS;
    while (!(this.stdoutEnded && this.stderrEnded)) {
      const before = this.reads;
      await nextCheckPhase();
      await nextCheckPhase();
      if (this.reads === before || Date.now() >= deadline) return;
    }
  }

  /**
   * stdout ended, or stdin broke: the process exits (the usual case), or it closed that pipe
   * and lives on, when it can take part in no exchange any more.
   */
  private async closedWhileAlive(kind: 'stdout-closed' | 'stdin-closed'): Promise<void> {
    if (this.exitInfo || this.stopping || this.gone) return;
    // An exiting process closes its files a moment before it becomes a zombie and is reaped.
    if (await waitForExit(this.child, STDOUT_EOF_GRACE_MS)) return;
    const pid = this.child.pid;
    const zombie = pid !== undefined && procfsAvailable() && readProcess(pid)?.state === 'Z';
    if (zombie || this.exitInfo || this.stopping) return; // dead: its 'exit' follows
    this.end({ kind });
    void this.stop();
  }

  private end(gone: ServerGone): void {
    if (this.gone) return;
    this.gone = gone;
    this.ongone?.(gone);
  }

  private async shutdown(): Promise<void> {
    const { child, tree } = this;
    if (!tree) return;
    let exited = waitedFor(child);
    if (!exited) {
      child.stdin?.end();
      exited = await waitForExit(child, this.options.stdinGraceMs);
    }
    // Even when the leader left on its own, what it started may remain.
    let gone = true;
    if (tree.signal('SIGTERM') || !exited) {
      const termGrace = this.options.termGraceMs;
      gone = (await waitForExit(child, termGrace)) && (await tree.waitGone(exited ? termGrace : 200));
      if (!gone) gone = await tree.kill(KILL_MS);
      await waitForExit(child, 1000);
    }
    this.finish(gone);
  }

  /** After an exit nobody asked for: what is left of the tree is killed at once. */
  private async reap(): Promise<void> {
    // The failed requests' callbacks run first: the scans below are synchronous.
    await nextCheckPhase();
    this.finish(this.tree ? await this.tree.kill(KILL_MS) : true);
  }

  private finish(gone: boolean): void {
    if (gone && this.tree) {
      untrackTree(this.tree);
      if (this.record) this.options.recorder?.ended(this.record);
    }
    // Empty once the tree is gone; what is still in it (a tree that could not be ended) is
    // killed with it, or left for the next host's sweep.
    if (gone || !this.tree) void this.cgroup?.remove();
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }
}

function waitedFor(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function nextCheckPhase(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
