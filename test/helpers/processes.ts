import { readdirSync, readFileSync } from 'node:fs';

/**
 * Looking at processes from a test, by reading /proc directly: written apart from
 * `src/client/transports/process-table.ts` on purpose, so the tests do not trust the code
 * they check. Linux only, like the tests that use it.
 */

/** True while the process exists and is not a zombie. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Live processes whose starting environment holds `name=value` (or any value, without one). */
export function processesWithEnv(name: string, value?: string): number[] {
  const wanted = value === undefined ? `${name}=` : `${name}=${value}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    const entries = environ.split('\0');
    const hit = value === undefined ? entries.some((e) => e.startsWith(wanted)) : entries.includes(wanted);
    if (hit && running(pid)) found.push(pid);
  }
  return found;
}

/** SIGKILLs whichever of `pids` still run (a test's cleanup, so a failing test orphans nothing). */
export function killSurvivors(pids: Iterable<number>): number[] {
  const survivors = [...pids].filter(running);
  for (const pid of survivors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return survivors;
}

/** The median and maximum of some figures, rounded to 0.1. */
export function medianAndMax(values: readonly number[]): { median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const round = (v: number) => Math.round(v * 10) / 10;
  return { median: round(median), max: round(sorted.at(-1) ?? 0) };
}
