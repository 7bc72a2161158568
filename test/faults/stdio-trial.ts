import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { misbehavingBin } from '../fixtures/paths.js';
import { killSurvivors, processesWithEnv } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';
import { type Fault, judgeWithin, REQUEST_TIMEOUT_S } from './fault-table.js';

/** How a stdio row starts its server: a mode of misbehaving.ts, maybe behind a shell. */
export interface StdioStart {
  readonly mode: string;
  /** A shell command line around the server's (`sh -c`), given the server's command line. */
  readonly shell?: (server: string) => string;
  readonly protocol?: 'legacy' | 'auto';
  /** Connect timeout, seconds (default the request timeout). */
  readonly connectS?: number;
  readonly listPageCap?: number;
}

/** What a stdio judge gets: a Connection not yet connected, and ways to witness the server. */
export interface StdioTrial {
  readonly name: string;
  readonly conn: Connection;
  readonly logs: LogEntry[];
  /** The pid of the process spawned (after connect). */
  pid(): number;
  /** SIGKILLs (or `signal`s) the spawned process; returns the moment. */
  kill(signal?: NodeJS.Signals): number;
  /** Waits for a log line that starts with `prefix`; returns its text. */
  logged(prefix: string, timeoutMs?: number): Promise<string>;
  /** When the log line `entry` arrived (performance.now()). */
  arrivedAt(entry: LogEntry): number;
  /** Live processes of this row (every descendant inherits the row's tag). */
  survivors(): number[];
}

export type StdioFault = Fault<StdioStart, StdioTrial>;

/** The environment variable every row's server (and all it starts) carries, unique per run. */
const TAG = 'SB_FAULT_TAG';

/** Runs one row: starts the connection, judges it, closes it, and checks nothing is left behind. */
export async function runStdioFault(fault: StdioFault): Promise<void> {
  const tag = `${fault.id}-${randomUUID()}`;
  const logs: LogEntry[] = [];
  const arrivals = new WeakMap<LogEntry, number>();
  const serverLine = `"${process.execPath}" "${misbehavingBin}" --mode ${fault.start.mode}`;
  const command = fault.start.shell
    ? { command: 'sh', args: ['-c', fault.start.shell(serverLine)] }
    : { command: process.execPath, args: [misbehavingBin, '--mode', fault.start.mode] };
  const conn = new Connection({
    config: normalizeServerEntry({
      name: fault.id,
      ...command,
      protocol: fault.start.protocol ?? 'legacy',
      env: { [TAG]: tag },
      timeouts: { request: REQUEST_TIMEOUT_S, connect: fault.start.connectS ?? REQUEST_TIMEOUT_S },
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => {
      arrivals.set(entry, performance.now());
      logs.push(entry);
    },
    ...(fault.start.listPageCap !== undefined && { listPageCap: fault.start.listPageCap }),
  });
  let spawned: number | undefined;
  const trial: StdioTrial = {
    name: fault.id,
    conn,
    logs,
    pid: () => {
      spawned ??= (conn.activeTransport as unknown as { pid: number | null } | undefined)?.pid ?? undefined;
      if (spawned === undefined) throw new Error('the server has no pid: not connected');
      return spawned;
    },
    kill: (signal = 'SIGKILL') => {
      process.kill(trial.pid(), signal);
      return performance.now();
    },
    logged: async (prefix, timeoutMs = 10_000) => {
      const line = await eventually(
        () => logs.find((l) => l.text.startsWith(prefix)),
        (found) => found !== undefined,
        { what: `saw a log line "${prefix}…"`, timeoutMs },
      );
      return line!.text;
    },
    arrivedAt: (entry) => arrivals.get(entry) ?? Number.NaN,
    survivors: () => processesWithEnv(TAG, tag),
  };
  try {
    await judgeWithin(fault.id, fault.judge(trial));
  } finally {
    await conn.close();
    // The promise of every row: nothing it started outlives close().
    try {
      await eventually(trial.survivors, (left) => left.length === 0, {
        what: 'saw every process of the row end after close()',
        timeoutMs: 5000,
        everyMs: 50,
      });
    } finally {
      killSurvivors(trial.survivors());
    }
  }
}
