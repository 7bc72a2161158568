import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/connection.js';
import type { LogEntry } from '../../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../../src/client/era.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { misbehavingBin } from '../../fixtures/paths.js';
import { killSurvivors, running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';

/**
 * A stdio server's whole process tree ends with it, however its processes left its process
 * group: `setsid`, a double fork, `nohup … &`, a job in a process group of its own.
 */
const open: Connection[] = [];
const daemons = new Set<number>();
const KINDS = ['setsid', 'double-fork', 'nohup', 'setpgid'];

async function withDaemons(): Promise<{ conn: Connection; pids: Map<string, number> }> {
  const logs: LogEntry[] = [];
  const conn = new Connection({
    config: normalizeServerEntry({
      name: 'daemons',
      command: process.execPath,
      args: [misbehavingBin, '--mode', 'daemons'],
      protocol: 'legacy',
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => logs.push(entry),
  });
  open.push(conn);
  await conn.connect();
  const pids = new Map<string, number>();
  await eventually(
    () => {
      for (const line of logs) {
        const [, kind, pid] = /^daemon-pid (\S+) (\d+)$/.exec(line.text) ?? [];
        if (kind && pid) {
          pids.set(kind, Number(pid));
          daemons.add(Number(pid));
        }
      }
      return pids.size;
    },
    (count) => count === KINDS.length,
    { what: 'saw every daemon start', timeoutMs: 15_000 },
  );
  expect([...pids.keys()].sort()).toEqual([...KINDS].sort());
  for (const pid of pids.values()) expect(running(pid)).toBe(true);
  return { conn, pids };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  expect(killSurvivors(daemons)).toEqual([]);
  daemons.clear();
});

describe('the process tree of a stdio server', () => {
  it('ends with close(), daemons that left the group included', async () => {
    const { conn, pids } = await withDaemons();
    await conn.close();
    const left = [...pids].filter(([, pid]) => running(pid)).map(([kind]) => kind);
    expect(left).toEqual([]);
  });

  it('ends when the server dies on its own, without close()', async () => {
    const { conn, pids } = await withDaemons();
    const disconnected = new Promise((resolve) => conn.once('disconnected', resolve));
    process.kill((conn.activeTransport as unknown as { pid: number }).pid, 'SIGKILL');
    await disconnected;
    await eventually(
      () => [...pids].filter(([, pid]) => running(pid)).map(([kind]) => kind),
      (left) => left.length === 0,
      { what: 'saw every daemon end', timeoutMs: 10_000 },
    );
  });
});
