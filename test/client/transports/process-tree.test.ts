import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  envValueIn,
  type ProcessEntry,
  type ProcessTable,
  parseStat,
  readProcess,
} from '../../../src/client/transports/process-table.js';
import { ancestry, selectTree, TREE_MARK_VAR } from '../../../src/client/transports/process-tree.js';
import { signalVerified } from '../../../src/client/transports/server-tree.js';
import { running } from '../../helpers/processes.js';

/** The membership rules of a server's process tree, on tables written by hand. */
function table(rows: readonly (Partial<ProcessEntry> & { pid: number; mark?: string })[]): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  const marks = new Map<number, string>();
  for (const { mark, ...row } of rows) {
    entries.set(row.pid, { ppid: 1, pgrp: row.pid, session: row.pid, startTime: 100, state: 'S', ...row });
    if (mark !== undefined) marks.set(row.pid, mark);
  }
  return { entries, envValue: (pid, name) => (name === TREE_MARK_VAR ? marks.get(pid) : undefined) };
}

const pids = (found: readonly ProcessEntry[]) => found.map((e) => e.pid).sort((a, b) => a - b);

describe('parseStat', () => {
  it('reads the fields after a command name with spaces and parentheses', () => {
    const text =
      '4242 (my (odd) server) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 987654 1000 50 18446744073709551615';
    expect(parseStat(text)).toEqual({
      pid: 4242,
      state: 'S',
      ppid: 17,
      pgrp: 4242,
      session: 4242,
      startTime: 987654,
    });
  });

  it('refuses what is not a stat line', () => {
    expect(parseStat('')).toBeUndefined();
    expect(parseStat('12 (x) S 1 2')).toBeUndefined();
  });

  it('reads this process', () => {
    const self = readProcess(process.pid)!;
    expect(self.pid).toBe(process.pid);
    expect(self.ppid).toBe(process.ppid);
    expect(self.startTime).toBeGreaterThan(0);
  });
});

describe('envValueIn', () => {
  const block = Buffer.from('A=1\0OTHER=xSWITCHBOARD_PROCESS_TREE=fake\0SWITCHBOARD_PROCESS_TREE=h/t\0Z=2\0');
  it('finds a variable only at the start of an entry', () => {
    expect(envValueIn(block, TREE_MARK_VAR)).toBe('h/t');
    expect(envValueIn(block, 'A')).toBe('1');
    expect(envValueIn(block, 'Z')).toBe('2');
    expect(envValueIn(block, 'MISSING')).toBeUndefined();
    expect(envValueIn(Buffer.from('OTHER=xA=1\0'), 'A')).toBeUndefined();
  });
});

describe('selectTree', () => {
  const root = { pid: 500, startTime: 100 };
  const query = { roots: [root], mark: { value: 'h/s1' }, notBefore: 100 };

  it('takes the root, its group, its session, marked processes and their descendants', () => {
    const found = selectTree(
      table([
        { pid: 500, pgrp: 500, session: 500, mark: 'h/s1' },
        { pid: 501, ppid: 500, pgrp: 500, session: 500 }, // a child that cleared its environment
        { pid: 502, ppid: 1, pgrp: 502, session: 500, startTime: 120 }, // setpgid, parent gone
        { pid: 503, ppid: 1, pgrp: 503, session: 503, startTime: 130, mark: 'h/s1' }, // setsid + double fork
        { pid: 504, ppid: 503, pgrp: 504, session: 504, startTime: 140 }, // its env-clearing child, setsid again
        { pid: 505, ppid: 1, pgrp: 503, session: 503, startTime: 150 }, // in the daemon's session, env cleared
        { pid: 600, ppid: 1, startTime: 90 }, // a stranger
        { pid: 601, ppid: 1, startTime: 200, mark: 'h/s2' }, // another server's
      ]),
      query,
    );
    expect(pids(found)).toEqual([500, 501, 502, 503, 504, 505]);
  });

  it('does not take a recycled pid, nor its group and session', () => {
    const found = selectTree(
      table([
        { pid: 500, startTime: 300 }, // pid 500 is someone else now
        { pid: 501, ppid: 500, pgrp: 500, session: 500, startTime: 310 },
      ]),
      query,
    );
    expect(found).toEqual([]);
  });

  it("keeps a dead root's group and session: the number stays theirs while in use", () => {
    const found = selectTree(
      table([
        { pid: 501, ppid: 1, pgrp: 500, session: 500, startTime: 110 },
        { pid: 502, ppid: 1, pgrp: 502, session: 500, startTime: 120 },
      ]),
      query,
    );
    expect(pids(found)).toEqual([501, 502]);
  });

  it('takes no marked process that started before the tree', () => {
    const found = selectTree(table([{ pid: 700, startTime: 50, mark: 'h/s1' }]), query);
    expect(found).toEqual([]);
  });

  it('finds every tree of a host by the prefix, and leaves out zombies, pid 1 and the spared', () => {
    const found = selectTree(
      table([
        { pid: 1, startTime: 0, mark: 'h/s1' },
        { pid: 800, startTime: 200, mark: 'h/s1' },
        { pid: 801, startTime: 200, mark: 'h/s9' },
        { pid: 802, startTime: 200, mark: 'hx/s1' },
        { pid: 803, startTime: 200, mark: 'h/s3', state: 'Z' },
        { pid: 804, startTime: 200, mark: 'h/s4' },
      ]),
      { roots: [], mark: { prefix: 'h/' }, notBefore: 100 },
      new Set([804]),
    );
    expect(pids(found)).toEqual([800, 801]);
  });

  it('spares the caller and its ancestors', () => {
    const t = table([
      { pid: 10, ppid: 1 },
      { pid: 20, ppid: 10 },
      { pid: 30, ppid: 20 },
    ]);
    expect([...ancestry(t, 30)].sort((a, b) => a - b)).toEqual([1, 10, 20, 30]);
  });
});

describe('signalVerified', () => {
  it('never signals a process whose start time is not the one recorded', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      const entry = readProcess(pid)!;
      expect(signalVerified({ pid, startTime: entry.startTime + 1 }, 'SIGKILL')).toBe(false);
      expect(running(pid)).toBe(true);
      expect(signalVerified({ pid, startTime: entry.startTime }, 'SIGKILL')).toBe(true);
      await new Promise((resolve) => child.once('exit', resolve));
    } finally {
      child.kill('SIGKILL');
    }
  });
});
