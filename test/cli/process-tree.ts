import { readdirSync, readFileSync } from 'node:fs';

/**
 * Which processes a CLI child started, for checking that none is left behind: upstream servers
 * run in their own process groups, so a group check alone would miss them. Linux (`/proc`).
 */

interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
}

function readStat(pid: string): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(pid), ppid: Number(ppid), state: state ?? '?' };
  } catch {
    return undefined; // gone while we looked
  }
}

/** The pids of every live descendant of `root`. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readStat(name);
    if (!entry || entry.state === 'Z') continue;
    children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < 10_000) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The command line of a process, or '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** True while `pid` runs (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  const entry = readStat(String(pid));
  return entry !== undefined && entry.state !== 'Z';
}

/** True while any process is in process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
