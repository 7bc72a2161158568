import type { ProcessEntry, ProcessTable } from './process-table.js';

/**
 * Which processes of a table belong to a stdio server's tree: the rules, pure. A server can
 * leave its process group in several ways (`setsid`, a double fork that hands the daemon to
 * init, `setpgid`, `nohup … &`), so membership is the union of layers, each catching what
 * the others miss:
 *
 * 1. **the root**, the process we spawned, known by pid *and* start time;
 * 2. **the marker**: every stdio server starts with `SWITCHBOARD_PROCESS_TREE=<host>/<token>`
 *    in its environment, and every descendant inherits it through `setsid` and double forks;
 *    only a process that clears its environment loses it;
 * 3. **group and session**: a process in the process group or the session of a member (the
 *    root leads both, being spawned with `setsid`); `setpgid` leaves the group but not the
 *    session, and an env-clearing child of the server stays in both;
 * 4. **descendants by parent pid** of any member: an env-clearing child that also left the
 *    session, for as long as its parent lives;
 * 5. **the cgroup**: where the host could start the server in a cgroup of its own
 *    (`tracked-launch.ts`), every process in it, whatever it did to its environment, session or
 *    parent.
 *
 * Without a cgroup, a process that clears its environment, leaves the session *and* loses its
 * parent escapes; the docs say so. A process is never taken by a pid alone: roots by start time, and every
 * other member must have started no earlier than the tree (`notBefore`), so a pid that was
 * recycled for a stranger is not ours.
 */

/** The environment variable that marks every process of a stdio server's tree. */
export const TREE_MARK_VAR = 'SWITCHBOARD_PROCESS_TREE';

/** A process known by pid and start time (clock ticks after boot): one process, for good. */
export interface KnownProcess {
  readonly pid: number;
  readonly startTime: number;
}

/** What to look for: one server's tree, or every tree of a host (by the marker's prefix). */
export interface TreeQuery {
  /** Processes known to be ours (the servers we spawned). */
  readonly roots: readonly KnownProcess[];
  /** Marker values that are ours: exactly `value`, or every one that begins with `prefix`. */
  readonly mark?: { readonly value: string } | { readonly prefix: string };
  /** No process of the tree started before this (the earliest root, or the host's own start). */
  readonly notBefore: number;
}

/**
 * The live (non-zombie) processes of the tree, never one of `spare` (the calling process and
 * its ancestors) nor pid 1. Pure: reads only the table.
 */
export function selectTree(
  table: ProcessTable,
  query: TreeQuery,
  spare: ReadonlySet<number> = new Set(),
  inCgroup: ReadonlySet<number> = new Set(),
): ProcessEntry[] {
  const { entries } = table;
  const members = new Map<number, ProcessEntry>();
  // Ids whose process group and session are ours, with the earliest start a member may have.
  // A root's id stays ours after the root died while no process holds the number: Linux does
  // not hand out a pid that is still some group's or session's id, so while our orphans keep
  // the group alive, no stranger can own that number (and so no stranger's group).
  const leaders = new Map<number, number>();
  const admit = (entry: ProcessEntry) => {
    members.set(entry.pid, entry);
    leaders.set(entry.pid, entry.startTime);
  };
  const excluded = (pid: number) => pid <= 1 || spare.has(pid);
  for (const root of query.roots) {
    const entry = entries.get(root.pid);
    if (entry === undefined) leaders.set(root.pid, root.startTime);
    else if (entry.startTime === root.startTime && !excluded(entry.pid)) admit(entry);
  }
  for (const pid of inCgroup) {
    const entry = entries.get(pid);
    if (entry && entry.startTime >= query.notBefore && !excluded(pid) && !members.has(pid)) admit(entry);
  }
  const mark = query.mark;
  if (mark) {
    const ours = 'value' in mark ? (v: string) => v === mark.value : (v: string) => v.startsWith(mark.prefix);
    for (const entry of entries.values()) {
      if (entry.startTime < query.notBefore || members.has(entry.pid) || excluded(entry.pid)) continue;
      const value = table.envValue(entry.pid, TREE_MARK_VAR);
      if (value !== undefined && ours(value)) admit(entry);
    }
  }
  // Group, session and parent links, to a fixed point (a member's own group and session are ours).
  for (let changed = true; changed; ) {
    changed = false;
    for (const entry of entries.values()) {
      if (members.has(entry.pid) || excluded(entry.pid)) continue;
      const parent = members.get(entry.ppid);
      if (
        linked(leaders, entry.pgrp, entry.startTime) ||
        linked(leaders, entry.session, entry.startTime) ||
        (parent !== undefined && entry.startTime >= parent.startTime)
      ) {
        admit(entry);
        changed = true;
      }
    }
  }
  return [...members.values()].filter((entry) => entry.state !== 'Z' && entry.state !== 'X');
}

function linked(leaders: ReadonlyMap<number, number>, id: number, startTime: number): boolean {
  const floor = leaders.get(id);
  return floor !== undefined && startTime >= floor;
}

/** `pid` and its ancestors in the table: what a tree query must never select. Pure. */
export function ancestry(table: ProcessTable, pid: number): Set<number> {
  const chain = new Set<number>();
  for (let at: number | undefined = pid; at !== undefined && at > 0 && !chain.has(at); ) {
    chain.add(at);
    at = table.entries.get(at)?.ppid;
  }
  return chain;
}
