import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { reapDeadHostCgroups } from '../../client/cgroups/cgroup-limits.js';
import { bootId, procfsAvailable, readProcess } from '../../client/transports/process-table.js';
import type { SpawnRecord, SpawnRecorder } from '../../client/transports/stdio.js';
import { describeError } from '../../core/errors.js';
import { type HostIdentity, type LedgerRecord, markPrefixOf } from './ledger-record.js';
import { type ReapSummary, reapLeftovers } from './leftover-reaper.js';
import { SpawnWatchdog } from './spawn-watchdog.js';

/**
 * The host's record of the stdio server processes it spawned, in `<dataDir>/processes/
 * <hostId>.json`, so that what it started is ended even when it is killed: by its watchdog at
 * once (`spawn-watchdog.ts`), else by the next host to start on the data dir
 * (`leftover-reaper.ts`). Every server is recorded at spawn and removed when its whole tree
 * has ended; every server's marker begins with the host's id, so a tree spawned an instant
 * before a kill, not yet written down, is still found.
 *
 * Each write goes to `<hostId>.json.tmp` and is renamed over the record: a host killed
 * mid-write leaves the previous record whole. There is no fsync: the record matters only
 * while this boot lasts (a reboot ends every process it names), and a killed process loses
 * nothing the kernel already has. Linux only (start times and markers are read from /proc);
 * elsewhere `open` returns undefined and servers are ended in-process only.
 */
export interface SpawnLedgerOptions {
  /** The ledger's directory (`<dataDir>/processes`). */
  readonly dir: string;
  /** Start the watchdog (default true). */
  readonly watchdog?: boolean;
  readonly log: (text: string) => void;
}

export class SpawnLedger implements SpawnRecorder {
  readonly markPrefix: string;
  /** What the reaping at open found of hosts that had died. */
  readonly reaped: ReapSummary;
  private readonly servers = new Map<string, SpawnRecord>();
  private readonly path: string;
  private dirty = false;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly startedAt = new Date(Date.now() - process.uptime() * 1000).toISOString();

  private constructor(
    private readonly options: SpawnLedgerOptions,
    private readonly hostId: string,
    private readonly self: HostIdentity,
    reaped: ReapSummary,
    private readonly watchdog: SpawnWatchdog | undefined,
  ) {
    this.markPrefix = markPrefixOf(hostId);
    this.path = join(options.dir, `${hostId}.json`);
    this.reaped = reaped;
  }

  /**
   * Reaps what dead hosts left (see `leftover-reaper.ts`), writes this host's record, and
   * starts the watchdog; resolves before any server may start. Undefined off Linux.
   */
  static async open(options: SpawnLedgerOptions): Promise<SpawnLedger | undefined> {
    const startTime = procfsAvailable() ? readProcess(process.pid)?.startTime : undefined;
    const boot = bootId();
    if (startTime === undefined || boot === undefined) return undefined;
    const self: HostIdentity = { pid: process.pid, startTime, bootId: boot, hostname: hostname() };
    await mkdir(options.dir, { recursive: true });
    const reaped = await reapLeftovers(options.dir, self, options.log).catch((error: unknown) => {
      options.log(`spawn ledger: reaping what dead hosts left failed: ${describeError(error)}`);
      return { hosts: 0, killed: 0, left: 0 };
    });
    // What dead hosts left in their cgroups, whatever it did to escape the ledger's other links
    // (any host's, on any data dir: only a host's own launch joins its cgroups).
    await reapDeadHostCgroups();
    const hostId = randomBytes(16).toString('hex');
    const watchdog = options.watchdog === false ? undefined : SpawnWatchdog.start(markPrefixOf(hostId));
    const ledger = new SpawnLedger(options, hostId, self, reaped, watchdog);
    await ledger.flush();
    return ledger;
  }

  /** The watchdog's pid, when one runs. */
  get watchdogPid(): number | undefined {
    return this.watchdog?.pid;
  }

  spawned(record: SpawnRecord): void {
    this.servers.set(record.mark, record);
    void this.flush();
  }

  ended(record: SpawnRecord): void {
    if (this.servers.delete(record.mark)) void this.flush();
  }

  /**
   * After the host stopped its servers: the record goes once none is left (one that could not
   * be ended stays for the next host to reap), and the watchdog ends what carries the
   * host's marker and exits.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    this.watchdog?.stop();
  }

  /** Brings the file up to date now, or once more after the write under way (they never overlap). */
  private flush(): Promise<void> {
    this.dirty = true;
    this.flushing ??= (async () => {
      while (this.dirty) {
        this.dirty = false;
        await this.write().catch((error: unknown) =>
          this.options.log(`spawn ledger: could not update ${this.path}: ${describeError(error)}`),
        );
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.dirty) void this.flush();
    });
    return this.flushing;
  }

  /** Writes the record; once the host closed and nothing is left to reap, removes it. */
  private async write(): Promise<void> {
    if (this.closed && this.servers.size === 0) {
      await rm(this.path, { force: true });
      return;
    }
    const record: LedgerRecord = {
      version: 1,
      hostId: this.hostId,
      host: this.self,
      startedAt: this.startedAt,
      servers: [...this.servers.values()],
    };
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, this.path);
  }
}
