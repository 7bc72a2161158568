import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readProcess } from '../../client/transports/process-table.js';
import { ProcessTree } from '../../client/transports/server-tree.js';
import {
  type HostIdentity,
  judgeRecord,
  type LedgerRecord,
  markPrefixOf,
  parseRecord,
} from './ledger-record.js';

/**
 * Ends what hosts that died (SIGKILL, OOM, a crash) left running, when a host starts on their
 * data dir: for each record of a dead host on this boot, every process carrying its marker,
 * its recorded servers (by pid and start time) and their groups, sessions and descendants
 * (`process-tree.ts`); then the record goes. A live host's record (its pid runs with the
 * recorded start time) is never touched, so a second host on the same data dir leaves the
 * first one's servers alone. Linux only (the caller checks).
 */
export interface ReapSummary {
  /** Records of dead hosts handled. */
  readonly hosts: number;
  /** Processes that were still running and were killed. */
  readonly killed: number;
  /** Processes that could not be ended (their records stay for the next start). */
  readonly left: number;
}

/** A temporary file of a write that never finished is dropped once this old. */
const ORPHAN_TMP_MS = 10 * 60 * 1000;
/** How long SIGKILL rounds on one dead host's trees may take. */
const KILL_MS = 5000;

export async function reapLeftovers(
  dir: string,
  self: HostIdentity,
  log: (text: string) => void,
): Promise<ReapSummary> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { hosts: 0, killed: 0, left: 0 };
  }
  const summary = { hosts: 0, killed: 0, left: 0 };
  const recorded = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)));
  for (const name of names) {
    const path = join(dir, name);
    if (name.endsWith('.json.tmp')) {
      // A write cut short; its record (if any) is judged on its own. Alone and old: dropped.
      if (!recorded.has(name.slice(0, -9)) && (await olderThan(path, ORPHAN_TMP_MS))) await drop(path);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    const record = parseRecord(await readFile(path, 'utf8').catch(() => ''));
    if (!record) {
      log(`spawn ledger: ${name} is not a ledger record; left as it is`);
      continue;
    }
    const verdict = judgeRecord(record, self, (pid) => readProcess(pid)?.startTime);
    if (verdict === 'stale') await drop(path);
    if (verdict !== 'dead') continue;
    summary.hosts++;
    const { killed, left } = await endTrees(record);
    summary.killed += killed;
    summary.left += left;
    if (killed > 0 || left > 0) {
      log(
        `host ${record.host.pid} (started ${record.startedAt}) died without ending its stdio servers: ` +
          `${killed} process(es) of theirs were killed${left > 0 ? `, ${left} could not be ended` : ''}`,
      );
    }
    if (left === 0) {
      await drop(path);
      await drop(`${path}.tmp`);
    }
  }
  return summary;
}

async function endTrees(record: LedgerRecord): Promise<{ killed: number; left: number }> {
  const roots = record.servers.flatMap((s) =>
    s.startTime === undefined ? [] : [{ pid: s.pid, startTime: s.startTime }],
  );
  const tree = new ProcessTree({
    roots,
    mark: { prefix: markPrefixOf(record.hostId) },
    notBefore: record.host.startTime,
  });
  const found = tree.members();
  if (found.length === 0) return { killed: 0, left: 0 };
  const gone = await tree.kill(KILL_MS);
  return { killed: found.length, left: gone ? 0 : tree.members().length };
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return false;
  }
}

function drop(path: string): Promise<void> {
  return rm(path, { force: true });
}
