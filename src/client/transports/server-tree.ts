import { readFileSync } from 'node:fs';
import { groupAlive, signalGroup } from './process-group.js';
import {
  type ProcessEntry,
  type ProcessTable,
  procfsAvailable,
  readProcess,
  readProcessTable,
} from './process-table.js';
import { ancestry, type KnownProcess, selectTree, type TreeQuery } from './process-tree.js';

/**
 * Signalling a whole process tree: a stdio server's (its process group, and on Linux every
 * process `process-tree.ts` counts as its own), or every tree of a dead host. Nothing is
 * signalled by a pid alone: each process is read again right before its signal and skipped
 * when its start time changed (the pid was recycled). The check and the signal are two
 * system calls apart; Linux hands out pids in order, so a pid coming back in that window
 * would take a full turn of the pid space.
 */
export class ProcessTree {
  /**
   * `pgid` is the group of the spawned server (its pid), or undefined for a tree known only by
   * its query; `query` is undefined where there is no procfs (the group alone counts);
   * `cgroupProcs` are the `cgroup.procs` files of the cgroup the tree was started in, if any.
   */
  constructor(
    readonly query: TreeQuery | undefined,
    private readonly pgid?: number,
    private readonly cgroupProcs: readonly string[] = [],
  ) {}

  /** The live members now (the group's and the cgroup's members included, on Linux). */
  members(table?: ProcessTable): ProcessEntry[] {
    if (!this.query || !procfsAvailable()) return [];
    const snapshot = table ?? readProcessTable();
    return selectTree(snapshot, this.query, ancestry(snapshot, process.pid), this.inCgroup());
  }

  /** The pids in the tree's cgroup now (read after the table, so none born meanwhile is missed for long). */
  private inCgroup(): ReadonlySet<number> {
    const pids = new Set<number>();
    for (const file of this.cgroupProcs) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // removed, or never joined
      }
      for (const word of text.split('\n')) if (word) pids.add(Number(word));
    }
    return pids;
  }

  /** Sends `signal` to the group and to every member; true when anything received it. */
  signal(signal: NodeJS.Signals, table?: ProcessTable): boolean {
    return this.signalAll(signal, table).length > 0;
  }

  /** Signals the group and every member; returns the members signalled (the group as its pid). */
  private signalAll(signal: NodeJS.Signals, table?: ProcessTable): KnownProcess[] {
    const reached: KnownProcess[] = [];
    if (this.groupIsOurs() && signalGroup(this.pgid!, signal))
      reached.push({ pid: -this.pgid!, startTime: 0 });
    for (const member of this.members(table)) if (signalVerified(member, signal)) reached.push(member);
    return reached;
  }

  /** True while the group or any member exists (a zombie does not count, see {@link groupLive}). */
  alive(): boolean {
    return this.scans() ? this.members().length > 0 : this.groupLive();
  }

  /**
   * Resolves true once the tree is gone, false when `timeoutMs` passed first. Polls the members
   * it knows (one small read each) and scans afresh only when they are gone, for any forked
   * meanwhile.
   */
  async waitGone(timeoutMs: number, signalled?: readonly KnownProcess[]): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let known = signalled ? signalled.filter((p) => p.pid > 0) : this.members();
    let delay = 5;
    for (;;) {
      known = known.filter(stillRunning);
      if (known.length === 0) {
        if (!this.scans()) {
          if (!this.groupLive()) return true;
        } else {
          known = this.members();
          if (known.length === 0) return true;
        }
      }
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 50);
    }
  }

  /**
   * SIGKILLs the tree in rounds until a scan finds nothing: a member may fork between a scan
   * and its signal, and its child shows up in the next scan. True when the tree is gone.
   */
  async kill(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const signalled = this.signalAll('SIGKILL');
      // SIGKILL takes effect at once, but a process dies only once the kernel has torn it down.
      if (await this.waitGone(Math.min(200, Math.max(0, deadline - Date.now())), signalled)) return true;
      if (Date.now() >= deadline) return false;
    }
  }

  /** True where members are found by scanning /proc (which holds every live process of the group too). */
  private scans(): boolean {
    return this.query !== undefined && procfsAvailable();
  }

  /**
   * Whether our group has any process, by `kill(-pgid, 0)`: where there is no /proc to scan.
   * It counts zombies, so with /proc the scan decides instead: a member that died after its
   * parent is reparented to init (or a subreaper), which reaps it when it pleases — a host
   * running as a container's pid 1 never does, as Node reaps only the children it spawned —
   * and waiting for that would hold every close until its deadline.
   */
  private groupLive(): boolean {
    return this.groupIsOurs() && groupAlive(this.pgid!);
  }

  /**
   * Whether a signal to `-pgid` reaches our group: the leader is ours (same start time) or gone.
   * A pid that is some group's id is not handed out again, so a group whose leader is gone is
   * still ours as long as it exists.
   */
  private groupIsOurs(): boolean {
    if (this.pgid === undefined) return false;
    const root = this.query?.roots.find((r) => r.pid === this.pgid);
    if (!root || !procfsAvailable()) return true;
    const now = readProcess(this.pgid);
    return now === undefined || now.startTime === root.startTime;
  }
}

/** Signals one process if it is still the one we found (same start time, not a zombie). */
export function signalVerified(entry: KnownProcess, signal: NodeJS.Signals): boolean {
  const now = readProcess(entry.pid);
  if (!now || now.startTime !== entry.startTime || now.state === 'Z') return false;
  try {
    process.kill(entry.pid, signal);
    return true;
  } catch {
    return false;
  }
}

function stillRunning(entry: KnownProcess): boolean {
  const now = readProcess(entry.pid);
  return now !== undefined && now.startTime === entry.startTime && now.state !== 'Z' && now.state !== 'X';
}

const live = new Set<ProcessTree>();
let exitHookInstalled = false;

/** Remembers a tree so it is killed if this process exits without stopping it. */
export function trackTree(tree: ProcessTree): void {
  live.add(tree);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: SIGKILL, with one table read for every tree.
    process.on('exit', () => {
      const table = procfsAvailable() ? readProcessTable() : undefined;
      for (const tree of live) tree.signal('SIGKILL', table);
    });
  }
}

export function untrackTree(tree: ProcessTree): void {
  live.delete(tree);
}
