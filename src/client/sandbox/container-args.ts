import type { SandboxLimits } from '../../core/config/sandbox-config.js';
import type { SandboxedCommand } from './bwrap-args.js';
import { STATE_DIR_VAR } from './sandbox-env.js';

/**
 * A sandbox profile as a container (`"backend": "container"`): `docker run` / `podman run`'s
 * command line, pure. The server's command runs inside the image (which brings its own
 * runtime), not the host's program; the profile maps onto the runtime's options:
 *
 * - `read` / `write` / roots → bind mounts at the same paths (`:ro` for reads); the state
 *   directory is mounted writable and is HOME; the image's file system is read-only
 *   (`--read-only`) with a private `/tmp`.
 * - `network` → `--network none` or `host` (a filtered network is refused by the config: its
 *   relay needs the host's Node in the image).
 * - `limits` → `--memory` (no swap beyond it), `--pids-limit`, `--cpus`, `--ulimit cpu=`: the
 *   runtime's cgroup holds them for the whole container, root or not.
 * - always `--cap-drop ALL`, `--security-opt no-new-privileges`, `--init` (a reaper as pid 1),
 *   `--rm`, a name of its own (the host removes the container by it when the server ends, since
 *   killing the runtime's client does not stop the container), the host user's uid and gid
 *   (so what it writes in the state directory is the user's; rootless podman keeps the uid with
 *   `--userns=keep-id`).
 * - the environment: `-e NAME` only, the values taken from the runtime client's own
 *   environment, so no value shows in the process list; the image keeps its own PATH.
 */
export interface ContainerLaunch {
  readonly runtime: string;
  readonly kind: 'docker' | 'podman';
  readonly name: string;
  readonly image: string;
  /** The command and arguments inside the image. */
  readonly command: string;
  readonly args: readonly string[];
  /** The server's environment (sandboxEnv): passed by name. */
  readonly env: Readonly<Record<string, string>>;
  /** The runtime client's own environment (PATH, HOME, DOCKER_HOST, …): not passed in. */
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stateDir: string;
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly network: 'none' | 'host';
  readonly limits: SandboxLimits;
  /** The host user's ids (undefined on a platform without them). */
  readonly uid?: number;
  readonly gid?: number;
}

/** Variables the image decides, whatever the host has. */
const IMAGE_OWN = new Set(['PATH']);

/** The `run` command line of a container launch. Pure. */
export function containerCommand(launch: ContainerLaunch): SandboxedCommand {
  const { limits, stateDir } = launch;
  const inside: Record<string, string> = {
    ...Object.fromEntries(Object.entries(launch.env).filter(([name]) => !IMAGE_OWN.has(name))),
    HOME: stateDir,
    TMPDIR: '/tmp',
    [STATE_DIR_VAR]: stateDir,
  };
  const rootless = launch.kind === 'podman' && launch.uid !== undefined && launch.uid !== 0;
  const args = [
    'run',
    '-i',
    '--rm',
    '--init',
    '--name',
    launch.name,
    '--network',
    launch.network,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--read-only',
    '--tmpfs',
    '/tmp',
    ...(rootless ? ['--userns=keep-id'] : []),
    ...(launch.uid !== undefined ? ['--user', `${launch.uid}:${launch.gid ?? launch.uid}`] : []),
    '--workdir',
    launch.cwd ?? stateDir,
    '-v',
    `${stateDir}:${stateDir}`,
    ...launch.read.filter((p) => !launch.write.includes(p)).flatMap((p) => ['-v', `${p}:${p}:ro`]),
    ...launch.write.flatMap((p) => ['-v', `${p}:${p}`]),
    ...(limits.memoryMb !== undefined
      ? ['--memory', `${limits.memoryMb}m`, '--memory-swap', `${limits.memoryMb}m`]
      : []),
    ...(limits.processes !== undefined ? ['--pids-limit', String(limits.processes)] : []),
    ...(limits.cpus !== undefined ? ['--cpus', String(limits.cpus)] : []),
    ...(limits.cpuSeconds !== undefined ? ['--ulimit', `cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`] : []),
    ...Object.keys(inside)
      .sort()
      .flatMap((name) => ['-e', name]),
    '--label',
    `org.switchboard.sandbox=${launch.name}`,
    launch.image,
    launch.command,
    ...launch.args,
  ];
  return { command: launch.runtime, args, env: { ...launch.clientEnv, ...inside } };
}

/** A container name for one launch: letters, digits, `_.-` only. */
export function containerName(server: string, hostPid: number, serial: number): string {
  return `switchboard-${server.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60)}-${hostPid}-${serial}`;
}
