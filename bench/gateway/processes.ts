import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Child processes of the gateway benchmark. Each target starts in its own process group, so
 * one signal reaches it and whatever it spawned; bridges that put their own children in
 * further groups are covered by killing every descendant found in /proc as well. Every
 * process started here is registered, and {@link killAllSync} ends them all — it runs on exit,
 * on SIGINT/SIGTERM and on an uncaught error.
 */
export interface Launched {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves with the first stdout line matching `pattern`; rejects on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** The last lines of stderr (and stdout), for a failure report. */
  tail(): string;
  /** SIGTERM to the group, then SIGKILL to the group and every descendant after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  readonly exited: Promise<number | null>;
}

const TAIL_LINES = 15;
const live = new Set<{ pid: number; known: Set<number> }>();

/** Starts `command` in a new process group with piped output. */
export function launch(
  name: string,
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Launched {
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const pid = child.pid;
  const entry = { pid, known: new Set<number>() };
  live.add(entry);
  const lines: string[] = [];
  const remember = (line: string) => {
    lines.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    if (lines.length > TAIL_LINES) lines.shift();
  };
  const stdoutLines: string[] = [];
  const waiters = new Set<(line: string) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    remember(line);
    stdoutLines.push(line);
    if (stdoutLines.length > 50) stdoutLines.shift();
    for (const w of waiters) w(line);
  });
  createInterface({ input: child.stderr! }).on('line', remember);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(entry);
      resolve(code);
    }),
  );
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });

  return {
    name,
    pid,
    child,
    exited,
    tail: () => lines.join('\n'),
    waitForLine: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        for (const line of stdoutLines) {
          const match = line.match(pattern);
          if (match) return resolve(match);
        }
        const done = () => {
          clearTimeout(timer);
          waiters.delete(onLine);
        };
        const onLine = (line: string) => {
          const match = line.match(pattern);
          if (match) {
            done();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(onLine);
        void exited.then((code) => {
          if (!waiters.has(onLine)) return;
          done();
          reject(new Error(`${name}: exited (${code}) before printing a line matching ${pattern}`));
        });
      }),
    stop: async (graceMs = 3000) => {
      for (const d of descendants(pid)) entry.known.add(d);
      if (exitCode === undefined) {
        signalGroup(pid, 'SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      killEntry(entry);
      live.delete(entry);
    },
  };
}

/** Records the current descendants of a launched process, so a kill reaches them too. */
export function trackDescendants(pid: number): number[] {
  const found = descendants(pid);
  for (const entry of live) if (entry.pid === pid) for (const d of found) entry.known.add(d);
  return found;
}

/** Every live process started here, its group and its known descendants: SIGKILL, now. */
export function killAllSync(): void {
  for (const entry of live) {
    for (const d of descendants(entry.pid)) entry.known.add(d);
    killEntry(entry);
  }
  live.clear();
}

function killEntry(entry: { pid: number; known: Set<number> }): void {
  signalGroup(entry.pid, 'SIGKILL');
  for (const d of entry.known) {
    signalGroup(d, 'SIGKILL');
    signal(d, 'SIGKILL');
  }
}

function signalGroup(pid: number, name: NodeJS.Signals): void {
  signal(-pid, name);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone (ESRCH), or a group that never existed: nothing to do.
  }
}

/** Pids of every process below `root`, from the parent pids in /proc (Linux). */
export function descendants(root: number): number[] {
  const parentOf = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name, which is in parentheses and may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = parentOf.get(ppid) ?? [];
      list.push(Number(name));
      parentOf.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const queue = [root];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    for (const child of parentOf.get(queue[i]!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Resident set size of `pid` in KiB (VmRSS), or undefined when it is gone. */
export function rssKiB(pid: number): number | undefined {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU time of `pid` so far in ms (/proc/<pid>/stat, clock ticks of 10 ms), or undefined when it is gone. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields 14 and 15 (utime, stime) follow the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
