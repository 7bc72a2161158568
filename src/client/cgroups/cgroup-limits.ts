import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SandboxLimits } from '../../core/config/sandbox-config.js';
import { readProcess } from '../transports/process-table.js';
import {
  type CgroupMount,
  type Controller,
  type HostMark,
  leafName,
  leafOwner,
  limitFiles,
  neededControllers,
  type OwnCgroup,
  ownDirectory,
  parseMountinfo,
  parseProcCgroup,
  trackingParent,
  v1Place,
} from './cgroup-plan.js';

/**
 * A cgroup of a sandbox's own, where the host may make one: the limits then hold for the whole
 * tree and for root (`cgroup-plan.ts` says why). Made beside this process's own cgroup —
 * cgroup v2: under the nearest ancestor that has the controllers and lets us enable them for
 * its children (root may; a user only in a tree delegated to them); v1: under this process's
 * cgroup of each controller's hierarchy (root only, as a rule). Where none can be made the
 * launch falls back to rlimits and says what no longer holds (`planWarnings`).
 *
 * The server joins it before it runs anything: the launch's first program writes its own pid
 * into each `cgroup.procs` and then becomes bubblewrap (`exec`), so every process of the tree
 * is born inside. On release the cgroup's leftovers are killed and the cgroup removed; one a
 * dead host left behind is removed by the next host that makes one beside it.
 */
export interface SandboxCgroup {
  /** The `cgroup.procs` files the launch joins. */
  readonly procs: readonly string[];
  /** The controllers whose limits hold, and in which hierarchy. */
  readonly held: readonly { readonly controller: Controller; readonly version: 1 | 2 }[];
  /** Kills what is left in it and removes it. Idempotent. */
  remove(): Promise<void>;
}

/** What was made (if anything) and why the rest could not be. */
export interface CgroupOutcome {
  readonly cgroup?: SandboxCgroup;
  /** Controllers the limits need that no cgroup holds. */
  readonly missing: readonly Controller[];
}

/** Where this process's cgroups are; read once (a process does not move by itself). */
interface Places {
  readonly mounts: readonly CgroupMount[];
  readonly owns: readonly OwnCgroup[];
}

let places: Places | undefined;
let serial = 0;
const swept = new Set<string>();
let self: HostMark | undefined;

/** This process as its leaves' names carry it. */
function hostMark(): HostMark {
  self ??= { pid: process.pid, startTime: readProcess(process.pid)?.startTime ?? 0 };
  return self;
}

/** Makes the cgroup(s) for `server` holding `limits`. Never throws: what cannot be held is `missing`. */
export function createSandboxCgroup(server: string, limits: SandboxLimits): CgroupOutcome {
  const needed = neededControllers(limits);
  if (needed.length === 0 || process.platform !== 'linux') return { missing: needed };
  places ??= readPlaces();
  const name = leafName(hostMark(), server, ++serial);
  const leaves: { dir: string; controllers: Controller[]; version: 1 | 2 }[] = [];
  const v2 = v2Parent(places, needed);
  if (v2) leaves.push({ dir: join(v2.parent, name), controllers: v2.controllers, version: 2 });
  for (const controller of needed) {
    if (v2?.controllers.includes(controller)) continue;
    const place = v1Place(places.mounts, places.owns, controller);
    const parent = place && ownDirectory(place.mount, place.own);
    if (!parent || !writable(parent)) continue;
    const same = leaves.find((l) => l.version === 1 && l.dir === join(parent, name));
    if (same) same.controllers.push(controller);
    else leaves.push({ dir: join(parent, name), controllers: [controller], version: 1 });
  }
  const made: typeof leaves = [];
  for (const leaf of leaves) {
    void sweep(dirname(leaf.dir));
    try {
      mkdirSync(leaf.dir);
    } catch {
      continue;
    }
    if (writeLimits(leaf.dir, leaf.version, leaf.controllers, limits)) made.push(leaf);
    else removeQuietly(leaf.dir);
  }
  const held = made.flatMap((l) => l.controllers.map((controller) => ({ controller, version: l.version })));
  const missing = needed.filter((c) => !held.some((h) => h.controller === c));
  if (made.length === 0) return { missing };
  let removing: Promise<void> | undefined;
  return {
    missing,
    cgroup: {
      procs: made.map((l) => join(l.dir, 'cgroup.procs')),
      held,
      remove: () => {
        removing ??= Promise.all(made.map((l) => removeLeaf(l.dir))).then(() => undefined);
        return removing;
      },
    },
  };
}

/**
 * The cgroup an unsandboxed stdio server is tracked by, where the host may make one: no
 * controller, no limit, only membership. A process born in it stays in it whatever it does to
 * its environment, session or parent, so the server's whole tree can be found and ended (see
 * `process-tree.ts`). Undefined where none can be made (a user without a delegated cgroup, a
 * read-only cgroup mount, no Linux): the tree is then found by its other links alone.
 */
export function createTrackingCgroup(server: string): SandboxCgroup | undefined {
  if (process.platform !== 'linux') return undefined;
  places ??= readPlaces();
  const parent = trackingParent(places.mounts, places.owns);
  if (!parent || !writable(parent.dir)) return undefined;
  void sweep(parent.dir);
  const dir = join(parent.dir, leafName(hostMark(), server, ++serial));
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  let removing: Promise<void> | undefined;
  return {
    procs: [join(dir, 'cgroup.procs')],
    held: [],
    remove: () => {
      removing ??= removeLeaf(dir);
      return removing;
    },
  };
}

/**
 * Ends what dead hosts left in their cgroups (the tracking ones and the sandboxes'), in every
 * place this process makes them. Their processes are provably theirs: only a host's own launch
 * joins its leaves. A host calls it as it starts; it runs once per place and process anyway.
 */
export async function reapDeadHostCgroups(): Promise<void> {
  if (process.platform !== 'linux') return;
  places ??= readPlaces();
  const parents = new Set<string>();
  const tracking = trackingParent(places.mounts, places.owns);
  if (tracking) parents.add(tracking.dir);
  for (const controller of ['pids', 'memory', 'cpu'] as const) {
    const place = v1Place(places.mounts, places.owns, controller);
    const dir = place && ownDirectory(place.mount, place.own);
    if (dir) parents.add(dir);
  }
  await Promise.all([...parents].map(sweep));
}

function readPlaces(): Places {
  try {
    return {
      mounts: parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')),
      owns: parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8')),
    };
  } catch {
    return { mounts: [], owns: [] };
  }
}

/**
 * cgroup v2: the nearest cgroup at or above this process's own whose children can have the
 * controllers — they are in its `cgroup.controllers`, and enabled in its `cgroup.subtree_control`
 * or can be (the kernel refuses that for a cgroup with processes of its own, except the root:
 * so our own cgroup serves only when it is the root). Undefined when none does.
 */
function v2Parent(
  { mounts, owns }: Places,
  needed: readonly Controller[],
): { parent: string; controllers: Controller[] } | undefined {
  const mount = mounts.find((m) => m.version === 2);
  const own = owns.find((o) => o.id === '0' && o.controllers.length === 0);
  const ownDir = mount && own && ownDirectory(mount, own);
  if (!mount || !ownDir) return undefined;
  const available = words(read(join(mount.mountPoint, 'cgroup.controllers')));
  const controllers = needed.filter((c) => available.includes(c));
  if (controllers.length === 0) return undefined;
  // Our own cgroup serves only as the root (which may have processes and children both).
  let dir = ownDir === mount.mountPoint ? ownDir : dirname(ownDir);
  for (
    let depth = 0;
    depth < 64 && (dir === mount.mountPoint || dir.startsWith(`${mount.mountPoint}/`));
    depth++
  ) {
    const usable = dir === mount.mountPoint || words(read(join(dir, 'cgroup.controllers'))).length > 0;
    if (usable) {
      if (!writable(dir)) break;
      const enabled = words(read(join(dir, 'cgroup.subtree_control')));
      const missing = controllers.filter((c) => !enabled.includes(c));
      if (missing.length === 0) return { parent: dir, controllers };
      try {
        writeFileSync(join(dir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
        return { parent: dir, controllers };
      } catch {
        // It has processes of its own (or it is not ours to change): try the one above.
      }
    }
    if (dir === mount.mountPoint) break;
    dir = dirname(dir);
  }
  return undefined;
}

function writeLimits(
  dir: string,
  version: 1 | 2,
  controllers: readonly Controller[],
  limits: SandboxLimits,
): boolean {
  for (const controller of controllers) {
    for (const { file, value, optional } of limitFiles(version, controller, limits)) {
      try {
        writeFileSync(join(dir, file), value);
      } catch {
        if (!optional) return false;
      }
    }
  }
  return true;
}

/** Ends what is left in a leaf and removes it, within about a second; left for the sweep otherwise. */
async function removeLeaf(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const pid of words(read(join(dir, 'cgroup.procs')))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
    await delay(20);
  }
}

/**
 * Ends what the leaves of hosts no longer running hold, and removes them: once per parent and
 * process. A leaf's host is gone when no process has its pid, or the one that has it started
 * at another time (the pid was handed out again).
 */
function sweep(parent: string): Promise<void> {
  if (swept.has(parent)) return Promise.resolve();
  swept.add(parent);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return Promise.resolve();
  }
  const dead = names.filter((name) => {
    const owner = leafOwner(name);
    return owner !== undefined && !hostRuns(owner);
  });
  // removeLeaf kills what is in each, waits for the kernel to let the processes go, removes it.
  return Promise.all(dead.map((name) => removeLeaf(join(parent, name)))).then(() => undefined);
}

/** Whether the host a leaf names still runs (ourselves included). */
function hostRuns(owner: HostMark): boolean {
  if (owner.pid === process.pid) return true;
  if (!alive(owner.pid)) return false;
  // A leaf named before start times were (0) is judged by its pid alone.
  if (owner.startTime === 0) return true;
  const now = readProcess(owner.pid)?.startTime;
  return now === undefined || now === owner.startTime;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // busy or gone
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}
