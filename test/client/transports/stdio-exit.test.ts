import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { isSwitchboardError, type SwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../../src/core/server-config.js';
import { misbehavingBin } from '../../fixtures/paths.js';
import { killSurvivors, medianAndMax, running } from '../../helpers/processes.js';
import { processesInGroup } from '../../helpers/servers.js';
import { eventually } from '../../helpers/wait.js';

/**
 * A stdio server's connection ends when the server does, whoever else holds its pipes: the
 * process we spawned exiting, or its stdout ending while it lives on. Times are judged from
 * the witnessed event (the SIGKILL we sent, the call that closes stdout); the request timeout
 * is 30 s, so a call that waits for it fails these bounds by far.
 */
const open: Connection[] = [];
const started = new Set<number>();
/** Far below the 30 s request timeout, far above what a loaded 2-core machine needs. */
const BOUND_MS = 2000;

function server(mode: string, logs: LogEntry[] = [], extra: Partial<RawServerEntry> = {}): Connection {
  const conn = new Connection({
    config: normalizeServerEntry({
      name: `bad-${mode}`,
      command: process.execPath,
      args: [misbehavingBin, '--mode', mode],
      protocol: 'legacy',
      timeouts: { request: 30 },
      ...extra,
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => {
      logs.push(entry);
      const pid = /^(?:started process|holder-pid) (\d+)$/.exec(entry.text)?.[1];
      if (pid) started.add(Number(pid));
    },
  });
  open.push(conn);
  return conn;
}

function pidOf(conn: Connection): number {
  return (conn.activeTransport as unknown as { pid: number }).pid;
}

async function holderPid(logs: LogEntry[]): Promise<number> {
  const line = await eventually(
    () => logs.find((l) => l.text.startsWith('holder-pid ')),
    (found) => found !== undefined,
    { what: 'saw the holder start', timeoutMs: 10_000 },
  );
  return Number(line!.text.split(' ')[1]);
}

/** A call's outcome and when it came (performance.now()). */
function timed<T>(promise: Promise<T>): Promise<{ error?: SwitchboardError; value?: T; at: number }> {
  return promise.then(
    (value) => ({ value, at: performance.now() }),
    (error: SwitchboardError) => ({ error, at: performance.now() }),
  );
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  expect(killSurvivors(started)).toEqual([]);
  started.clear();
});

describe('a stdio server that dies while a process it started holds its stdout', () => {
  for (const mode of ['pipe-holder', 'pipe-holder-setsid']) {
    it(`fails pending calls at once and ends the holder (${mode})`, async () => {
      const delays: number[] = [];
      for (let trial = 0; trial < 4; trial++) {
        const logs: LogEntry[] = [];
        const conn = server(mode, logs);
        await conn.connect();
        const holder = await holderPid(logs);
        const disconnected = new Promise<SwitchboardError>((resolve) => conn.once('disconnected', resolve));
        const pending = timed(conn.callTool('hang', {}));
        // Answered after `hang` was read: the pending call is with the server when it dies.
        await conn.callTool('echo', { text: 'x' });
        process.kill(pidOf(conn), 'SIGKILL');
        const died = performance.now();
        const outcome = await pending;
        delays.push(outcome.at - died);
        expect(isSwitchboardError(outcome.error, 'UPSTREAM_DISCONNECTED')).toBe(true);
        expect(outcome.at - died).toBeLessThan(BOUND_MS);
        expect((await disconnected).message).toMatch(
          /signal SIGKILL while a process it had started still held/,
        );
        // The holder is ended without anyone calling close().
        await eventually(
          () => running(holder),
          (alive) => !alive,
          { what: 'saw the holder end', timeoutMs: 10_000 },
        );
        await conn.close();
      }
      console.info(`death → pending call failed (${mode}), ms:`, medianAndMax(delays), delays);
    });
  }

  it('delivers everything the server wrote before it exited, then fails the rest', async () => {
    const logs: LogEntry[] = [];
    const conn = server('pipe-holder', logs);
    await conn.connect();
    await holderPid(logs);
    const pending = timed(conn.callTool('hang', {}));
    // 5000 notifications (~400 KiB) and the answer, all written before the exit: more than a pipe holds.
    const farewell = await conn.callTool('farewell', { count: 5000 });
    expect(farewell.text).toBe('farewell after 5000');
    const outcome = await pending;
    expect(isSwitchboardError(outcome.error, 'UPSTREAM_DISCONNECTED')).toBe(true);
    expect(outcome.error!.details.reason).toBe('exited-stdout-held');
    await eventually(
      () => logs.filter((l) => l.source === 'server' && l.text.startsWith('farewell ')).length,
      (count) => count === 5000,
      { what: 'saw all 5000 notifications', timeoutMs: 5000 },
    );
  });

  it('takes the spawned process for the server: a wrapper that backgrounds it and exits ends it', async () => {
    // `sh` starts the real server in the background with our pipes (`<&0` keeps stdin) and exits 0.
    const logs: LogEntry[] = [];
    const conn = server('wrapped', logs, {
      command: 'sh',
      args: ['-c', `"${process.execPath}" "${misbehavingBin}" --mode hang <&0 &`],
    });
    const error = (await conn.connect().catch((e: unknown) => e)) as SwitchboardError;
    expect(isSwitchboardError(error)).toBe(true);
    expect(error.message).toMatch(/code 0/);
    const wrapper = Number(/^started process (\d+)$/.exec(logs[0]?.text ?? '')?.[1]);
    expect(wrapper).toBeGreaterThan(0);
    // The server it left in its group is ended with it.
    await eventually(
      () => processesInGroup(wrapper),
      (left) => left.length === 0,
      { what: 'saw the backgrounded server end', timeoutMs: 10_000 },
    );
  });
});

describe('a stdio server that closes its stdout and lives on', () => {
  it('fails pending calls at once, says why, and stops the process', async () => {
    const conn = server('close-stdout');
    await conn.connect();
    const pid = pidOf(conn);
    started.add(pid);
    const disconnected = new Promise<SwitchboardError>((resolve) => conn.once('disconnected', resolve));
    const hang = timed(conn.callTool('hang', {}));
    const sent = performance.now();
    const closing = timed(conn.callTool('close-stdout', {}));
    for (const outcome of await Promise.all([hang, closing])) {
      expect(outcome.at - sent).toBeLessThan(BOUND_MS);
      expect(isSwitchboardError(outcome.error, 'UPSTREAM_DISCONNECTED')).toBe(true);
      expect(outcome.error!.details.reason).toBe('stdout-closed');
      expect(outcome.error!.message).toMatch(
        /closed its stdout while its process \(pid \d+\) was still running/,
      );
    }
    const error = await disconnected;
    expect(error.details.reason).toBe('stdout-closed');
    expect(error.message).toMatch(/the process was stopped/);
    await eventually(
      () => running(pid),
      (alive) => !alive,
      { what: 'saw the server stopped', timeoutMs: 10_000 },
    );
  });
});
