import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Who runs a gateway task: one task ledger of a gateway process, named `<host>/<pid>/<nonce>` —
 * the nonce tells the ledgers of one process apart, and this run of a process from an earlier
 * one that had the same pid (a container restarted in place). A task whose owner is gone is dead: nothing will ever finish it. An owner is gone when
 * its lease has run out (it renews the leases of its tasks while it lives), or at once when it
 * ran on this machine and its process is no longer there (a gateway killed and started again
 * sees its old tasks dead on the first poll, not a lease later).
 */

export interface Owner {
  readonly host: string;
  readonly pid: number;
  readonly nonce: string;
}

/** This process as an owner, with a fresh nonce. */
export function thisProcess(): Owner {
  return { host: hostname(), pid: process.pid, nonce: randomBytes(6).toString('base64url') };
}

export function ownerId(owner: Owner): string {
  return `${owner.host}/${owner.pid}/${owner.nonce}`;
}

/** The owner an id names, or undefined when it is not an owner id. */
export function parseOwner(id: string): Owner | undefined {
  const last = id.lastIndexOf('/');
  const middle = id.lastIndexOf('/', last - 1);
  if (middle <= 0 || last <= middle + 1 || last === id.length - 1) return undefined;
  const pid = Number(id.slice(middle + 1, last));
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { host: id.slice(0, middle), pid, nonce: id.slice(last + 1) };
}

/**
 * The owners living in this process: one per task ledger (a process may serve several gateways
 * on one store), each until it closes. A task of this pid whose owner is not among them was
 * left by an earlier run of a process with this pid.
 */
const ownersHere = new Set<string>();

/** Notes that `owner`, of this process, runs tasks from now on. */
export function enter(owner: Owner): void {
  ownersHere.add(owner.nonce);
}

/** Notes that `owner` runs no more tasks (its ledger closed). */
export function leave(owner: Owner): void {
  ownersHere.delete(owner.nonce);
}

/** What deciding whether an owner is gone needs to know. */
export interface OwnerCheck {
  /** This process. */
  readonly self: Owner;
  readonly now: Date;
  /** Whether a process of this machine still runs (injectable for tests). */
  readonly alive: (pid: number) => boolean;
  /** Whether an owner of this process with `nonce` lives (default: the ones that entered). */
  readonly here?: (nonce: string) => boolean;
}

/**
 * Why the owner `id` of a task leased until `leaseUntil` is gone, or undefined while it may
 * still be running the task. Not this process: the caller knows its own tasks.
 */
export function ownerGone(id: string, leaseUntil: Date | undefined, check: OwnerCheck): string | undefined {
  const owner = parseOwner(id);
  if (owner?.host === check.self.host) {
    if (owner.pid === check.self.pid) {
      const here = check.here ?? ((nonce: string) => ownersHere.has(nonce));
      return here(owner.nonce) ? undefined : 'was restarted';
    }
    if (owner.pid !== check.self.pid && !check.alive(owner.pid)) return 'is no longer running';
  }
  if (leaseUntil === undefined || leaseUntil.getTime() <= check.now.getTime()) {
    return 'stopped renewing its lease on the task';
  }
  return undefined;
}
