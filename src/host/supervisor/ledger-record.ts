import type { SpawnRecord } from '../../client/transports/stdio.js';

/**
 * One host's entry in the spawn ledger (`<dataDir>/processes/<hostId>.json`): who the host is
 * (pid and start time on this boot of this machine) and the stdio servers it spawned and has
 * not yet seen end. Pure: parsing and the verdict on a record; `spawn-ledger.ts` does the I/O.
 */
export interface HostIdentity {
  readonly pid: number;
  /** `/proc/<pid>/stat` field 22: with the boot id, the host's process and no other. */
  readonly startTime: number;
  readonly bootId: string;
  readonly hostname: string;
}

export interface LedgerRecord {
  readonly version: 1;
  /** Random; every server's marker begins with `<hostId>/`. */
  readonly hostId: string;
  readonly host: HostIdentity;
  readonly startedAt: string;
  readonly servers: readonly SpawnRecord[];
}

/** The marker prefix of every tree a host spawns. */
export function markPrefixOf(hostId: string): string {
  return `${hostId}/`;
}

/** What a host starting now does with another host's record. */
export type LedgerVerdict =
  /** Its host runs: leave it alone. */
  | 'alive'
  /** Its host died on this boot: end what carries its marker or is its recorded server, then drop the record. */
  | 'dead'
  /** Written before the last reboot: its processes ended with that boot; drop the record. */
  | 'stale'
  /** Written on another machine sharing the data dir: not ours to judge. */
  | 'foreign';

/**
 * The verdict on `record` for the host `self`; `startTimeOf` reads a live process's start
 * time (undefined when no such process). Pure.
 */
export function judgeRecord(
  record: LedgerRecord,
  self: HostIdentity,
  startTimeOf: (pid: number) => number | undefined,
): LedgerVerdict {
  if (record.host.hostname !== self.hostname) return 'foreign';
  if (record.host.bootId !== self.bootId) return 'stale';
  if (record.host.pid === self.pid && record.host.startTime === self.startTime) return 'alive';
  return startTimeOf(record.host.pid) === record.host.startTime ? 'alive' : 'dead';
}

/** A ledger file's text as a record, or undefined when it is not one. Pure. */
export function parseRecord(text: string): LedgerRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = value as Partial<LedgerRecord> | null;
  const host = r?.host as Partial<HostIdentity> | undefined;
  const valid =
    r?.version === 1 &&
    typeof r.hostId === 'string' &&
    /^[0-9a-f]{8,64}$/.test(r.hostId) &&
    typeof host?.pid === 'number' &&
    typeof host.startTime === 'number' &&
    typeof host.bootId === 'string' &&
    typeof host.hostname === 'string' &&
    Array.isArray(r.servers) &&
    r.servers.every(
      (s: Partial<SpawnRecord>) =>
        typeof s?.pid === 'number' &&
        typeof s.mark === 'string' &&
        (s.startTime === undefined || typeof s.startTime === 'number') &&
        Array.isArray(s.command),
    );
  return valid ? (r as LedgerRecord) : undefined;
}
