import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeSandboxNetwork } from '../../core/config/sandbox-network.js';
import { SwitchboardError } from '../../core/errors.js';
import { interpolate } from '../../core/interpolate.js';
import { createSandboxCgroup, type SandboxCgroup } from '../cgroups/cgroup-limits.js';
import { bwrapCommand, describeLimits, planWarnings, type SandboxLaunch } from './bwrap-args.js';
import { type Bwrap, findBwrap, findExecutable, overlayWorks } from './bwrap-probe.js';
import { prepareContainer } from './container-launch.js';
import { cacheLayers, type LauncherCacheLayer, launcherOf, layerDirs } from './launcher-cache.js';
import { openSandboxNet, type SandboxNet } from './sandbox-net.js';
import {
  grantedPath,
  type Program,
  programPaths,
  resolveProgram,
  rootPaths,
  systemEntries,
} from './sandbox-paths.js';
import type { PreparedSandbox, SandboxRequest } from './sandbox-request.js';

export type { PreparedSandbox, SandboxRequest } from './sandbox-request.js';

/**
 * The I/O half of a sandboxed launch: finds bubblewrap (and refuses with SANDBOX_UNAVAILABLE
 * when it cannot work here), resolves the program and the granted paths (`sandbox-paths.ts`),
 * creates the server's state directory, opens what the sandbox needs on the host's side — the
 * proxy and relay sockets of a filtered network (`sandbox-net.ts`), its cgroup
 * (`cgroup-limits.ts`), its launcher's cache layers (`launcher-cache.ts`) — and hands the rest
 * to the pure `bwrapCommand`. What it opened is released by `release()` once the sandbox ended.
 */

/** Prepares the launch of a sandboxed server; throws SANDBOX_UNAVAILABLE or SPAWN_FAILED. */
export async function prepareSandbox(request: SandboxRequest): Promise<PreparedSandbox> {
  const { profile, server } = request;
  if (profile.backend.kind === 'container') return prepareContainer(request, profile.backend);
  const bwrap = await findBwrap(request.bwrapDirs);
  const at = (field: string) => ({ server, field });
  const paths = (list: readonly string[], field: string) =>
    list.map((p, i) =>
      grantedPath(interpolate(p, request.vars, at(`sandbox.${field}[${i}]`)), server, field),
    );
  const command = resolveProgram(request.command, request.env.PATH ?? '', request.cwd);
  const stateDir = join(request.stateRoot, server);
  const filtered = profile.network.kind === 'filtered' ? profile.network : undefined;
  if (filtered && !request.network) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `Server "${server}": its sandbox reaches the network through a proxy, and this connection was made without the judge of its destinations (ConnectionOptions.sandboxNetwork, which a Host sets). Connect it through a Host, or give the option.`,
      { details: { server, reason: 'no-network-judge' } },
    );
  }
  const system = systemEntries();
  const systemPaths = system.map((s) => s.path);
  const node = filtered ? nodeProgram() : undefined;
  const read = [
    ...programPaths(command, request.args, systemPaths),
    ...(node ? programPaths(node, [], systemPaths) : []),
    ...paths(profile.read, 'read'),
    ...rootPaths(request.roots, server),
  ];
  const write = paths(profile.write, 'write');
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const caches = await launcherCaches(bwrap, command, request, stateDir);
  const opened: { net?: SandboxNet; cgroup?: SandboxCgroup } = {};
  let released: Promise<void> | undefined;
  const release = () => {
    released ??= Promise.all([opened.net?.close(), opened.cgroup?.remove()]).then(() => undefined);
    return released;
  };
  try {
    if (filtered && request.network) opened.net = await openSandboxNet(filtered, request.network);
    const { cgroup } = createSandboxCgroup(server, profile.limits);
    const shell = cgroup && findExecutable('sh', ['/bin', '/usr/bin']);
    if (cgroup && shell) opened.cgroup = cgroup;
    else void cgroup?.remove();
    const prlimit = findExecutable('prlimit', ['/usr/bin', '/bin']);
    const launch: SandboxLaunch = {
      bwrap: bwrap.path,
      ...(prlimit && { prlimit }),
      disableUserns: bwrap.disableUserns,
      command: command.path,
      args: request.args,
      env: request.env,
      ...(request.cwd !== undefined && { cwd: resolve(request.cwd) }),
      stateDir,
      system,
      read,
      write,
      network: profile.network,
      limits: profile.limits,
      ...(opened.net &&
        node && {
          relay: { socketDir: opened.net.dir, node: node.path, mirrored: opened.net.mirrored },
        }),
      ...(opened.cgroup &&
        shell && {
          cgroup: { shell, procs: opened.cgroup.procs, held: opened.cgroup.held.map((h) => h.controller) },
        }),
      ...(caches.overlays.length > 0 && { overlays: caches.overlays }),
    };
    const uid = process.getuid?.();
    const version = opened.cgroup
      ? ` (cgroup v${[...new Set(opened.cgroup.held.map((h) => h.version))].join('+')})`
      : '';
    const summary = [
      describeSandboxNetwork(profile.network),
      `${describeLimits(launch, uid)}${version}`,
      ...(caches.note ? [caches.note] : []),
    ].join('; ');
    return {
      ...bwrapCommand(launch),
      backend: 'bubblewrap',
      stateDir,
      warnings: planWarnings(launch, uid),
      summary,
      release,
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The Node that runs the relay of a filtered network: this process's own. */
function nodeProgram(): Program {
  return resolveProgram(process.execPath, '', undefined);
}

interface Caches {
  readonly overlays: NonNullable<SandboxLaunch['overlays']>;
  /** What the launcher caches into, in words (only for a launcher). */
  readonly note?: string;
}

/** The user's caches a launcher gets laid read-only under its own, where bubblewrap can. */
async function launcherCaches(
  bwrap: Bwrap,
  program: Program,
  request: SandboxRequest,
  stateDir: string,
): Promise<Caches> {
  const launcher = launcherOf(request.command, program.real);
  if (!launcher) return { overlays: [] };
  if (request.profile.launcherCache === 'own') return { overlays: [], note: `${launcher} cache: its own` };
  const home = request.vars.HOME || homedir();
  const layers = cacheLayers(launcher, request.vars, home, stateDir).filter((l) => isDirectory(l.lower));
  if (layers.length === 0) return { overlays: [], note: `${launcher} cache: its own (the user has none)` };
  if (!(await overlayWorks(bwrap, request.stateRoot))) {
    return {
      overlays: [],
      note: `${launcher} cache: its own (${bwrap.overlay ? 'overlayfs is refused here' : "this bubblewrap is older than 0.9 and cannot lay the user's cache under it"})`,
    };
  }
  return {
    overlays: layers.map((layer: LauncherCacheLayer) => {
      const { upper, work } = layerDirs(stateDir, layer);
      mkdirSync(upper, { recursive: true, mode: 0o700 });
      mkdirSync(work, { recursive: true, mode: 0o700 });
      mkdirSync(layer.inside, { recursive: true, mode: 0o700 });
      return { lower: layer.lower, upper, work, inside: layer.inside };
    }),
    note: `${launcher} cache: the user's (${layers.map((l) => l.lower).join(', ')}) read-only under its own`,
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
