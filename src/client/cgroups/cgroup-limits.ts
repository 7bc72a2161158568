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
import {
  type CgroupMount,
  type Controller,
  leafName,
  leafOwner,
  limitFiles,
  neededControllers,
  type OwnCgroup,
  ownDirectory,
  parseMountinfo,
  parseProcCgroup,
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

/** Makes the cgroup(s) for `server` holding `limits`. Never throws: what cannot be held is `missing`. */
export function createSandboxCgroup(server: string, limits: SandboxLimits): CgroupOutcome {
  const needed = neededControllers(limits);
  if (needed.length === 0 || process.platform !== 'linux') return { missing: needed };
  places ??= readPlaces();
  const name = leafName(process.pid, server, ++serial);
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
    sweep(dirname(leaf.dir));
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

/** Removes the empty leaves of hosts no longer running, once per parent and process. */
function sweep(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = leafOwner(name);
    if (owner === undefined || owner === process.pid || alive(owner)) continue;
    removeQuietly(join(parent, name));
  }
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
