import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/**
 * The processes of this machine as Linux's procfs shows them (proc(5)): the one place that
 * reads `/proc`. Reads are synchronous on purpose: a table of a few hundred processes reads in
 * a few milliseconds, faster than the thread pool's round trips (`bench/process-tree.bench.ts`),
 * and the exit hook, which must be synchronous, uses the same code. Each file is read with one
 * open, read and close into a shared buffer (`readFileSync` adds an fstat and a second read,
 * and costs twice as much here). Elsewhere (macOS, Windows)
 * `procfsAvailable()` is false and callers fall back to the process group alone.
 */

/** One process as `/proc/<pid>/stat` shows it. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id (field 5). */
  readonly pgrp: number;
  /** Session id (field 6). */
  readonly session: number;
  /**
   * Field 22: when the process started, in clock ticks after boot. With the boot id it names
   * one process for good, so a pid that was recycled is told apart from the one we knew.
   */
  readonly startTime: number;
  /** Field 3: R, S, D, Z (zombie), … */
  readonly state: string;
}

/** A snapshot of every process, with their starting environments read on demand. */
export interface ProcessTable {
  readonly entries: ReadonlyMap<number, ProcessEntry>;
  /**
   * The value of `name` in the environment the process started with (`/proc/<pid>/environ`),
   * or undefined when it is unset or unreadable (another user's process, a kernel thread).
   */
  envValue(pid: number, name: string): string | undefined;
}

/** Parses `/proc/<pid>/stat`; undefined when the text is not one. Pure. */
export function parseStat(text: string): ProcessEntry | undefined {
  // Field 2 (comm) is in parentheses and may itself hold spaces and ')': the fields after it
  // begin after the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const rest = text.slice(close + 2).split(' ');
  const entry = {
    pid,
    state: rest[0] ?? '',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    session: Number(rest[3]),
    startTime: Number(rest[19]),
  };
  const numbers = [entry.pid, entry.ppid, entry.pgrp, entry.session, entry.startTime];
  return numbers.every(Number.isSafeInteger) && entry.state !== '' ? entry : undefined;
}

/** The value of `name` in a NUL-separated environment block, or undefined. Pure. */
export function envValueIn(block: Buffer, name: string): string | undefined {
  const key = Buffer.from(`${name}=`);
  let at = block.indexOf(key);
  while (at >= 0) {
    // Only at the start of an entry: `OTHER=…NAME=x` is not NAME.
    if (at === 0 || block[at - 1] === 0) {
      const end = block.indexOf(0, at);
      return block.subarray(at + key.length, end < 0 ? block.length : end).toString('utf8');
    }
    at = block.indexOf(key, at + 1);
  }
  return undefined;
}

let available: boolean | undefined;

/** Whether this machine has a Linux procfs to read (checked once). */
export function procfsAvailable(): boolean {
  if (available === undefined) {
    try {
      available =
        process.platform === 'linux' && parseStat(readFileSync('/proc/self/stat', 'latin1')) !== undefined;
    } catch {
      available = false;
    }
  }
  return available;
}

/** A stat line is some 300 bytes: one read of this buffer takes it whole. */
const statBuffer = Buffer.allocUnsafe(4096);

/** One process now, or undefined when it is gone (or procfs is missing). */
export function readProcess(pid: number): ProcessEntry | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return undefined;
  }
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    return parseStat(statBuffer.toString('latin1', 0, length));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The whole of a /proc file (its size is not known ahead: procfs reports 0). */
function readWhole(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunks.length === 0 ? 4096 : 65536);
      const length = readSync(fd, chunk, 0, chunk.length, null);
      if (length === 0) break;
      chunks.push(chunk.subarray(0, length));
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Every process now. Empty without procfs. */
export function readProcessTable(): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    // no procfs: an empty table
  }
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue; // only the numeric entries are processes
    const entry = readProcess(Number(name));
    if (entry) entries.set(entry.pid, entry);
  }
  const environs = new Map<number, Buffer | null>();
  return {
    entries,
    envValue(pid, variable) {
      let block = environs.get(pid);
      if (block === undefined) {
        block = readWhole(`/proc/${pid}/environ`);
        environs.set(pid, block);
      }
      return block ? envValueIn(block, variable) : undefined;
    },
  };
}

/** This boot's id (`/proc/sys/kernel/random/boot_id`): start times count from it. */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
  } catch {
    return undefined;
  }
}
