import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SandboxBackend } from '../../core/config/sandbox-config.js';
import { SwitchboardError } from '../../core/errors.js';
import { interpolate } from '../../core/interpolate.js';
import { findExecutable } from './bwrap-probe.js';
import { containerCommand, containerName } from './container-args.js';
import { grantedPath, rootPaths } from './sandbox-paths.js';
import type { PreparedSandbox, SandboxRequest } from './sandbox-request.js';

/**
 * The I/O half of a container sandbox (`container-args.ts` builds the command line): finds the
 * runtime (podman, else docker, unless the profile names one) and checks that it can run
 * containers here — the client alone is not enough, docker's engine must answer — and removes
 * the container once the server ended (killing the runtime's client leaves it running).
 */
type Container = Extract<SandboxBackend, { kind: 'container' }>;

/** The runtime client's variables that reach it (not the container). */
const CLIENT_ENV = [
  'PATH',
  'HOME',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINERS_CONF',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
];

const working = new Map<string, Promise<void>>();
let serial = 0;

/** Prepares a container launch; throws SANDBOX_UNAVAILABLE (no runtime, or it cannot run containers). */
export async function prepareContainer(
  request: SandboxRequest,
  backend: Container,
): Promise<PreparedSandbox> {
  const { server, profile } = request;
  const dirs = (request.vars.PATH ?? process.env.PATH ?? '').split(delimiter);
  const order = backend.runtime ? [backend.runtime] : (['podman', 'docker'] as const);
  const found = order
    .map((kind) => ({ kind, path: findExecutable(kind, [...dirs, '/usr/bin', '/usr/local/bin']) }))
    .find((r) => r.path !== undefined);
  if (!found?.path) {
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `Server "${server}" runs in a container, and ${order.join(' or ')} is not installed. Install one (Debian: apt-get install podman), or use "backend": "bubblewrap". It was not started unsandboxed.`,
      { details: { server, reason: 'container-runtime-missing' } },
    );
  }
  const runtime = { kind: found.kind, path: found.path };
  const clientEnv = Object.fromEntries(
    CLIENT_ENV.flatMap((name) => {
      const value = request.vars[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );
  await ensureWorking(runtime, clientEnv, server);
  const at = (field: string) => ({ server, field });
  const paths = (list: readonly string[], field: string) =>
    list.map((p, i) =>
      grantedPath(interpolate(p, request.vars, at(`sandbox.${field}[${i}]`)), server, field),
    );
  const read = [...paths(profile.read, 'read'), ...rootPaths(request.roots, server)];
  const write = paths(profile.write, 'write');
  const stateDir = join(request.stateRoot, server);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const name = containerName(server, process.pid, ++serial);
  const network = profile.network.kind === 'host' ? 'host' : 'none';
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  const command = containerCommand({
    runtime: runtime.path,
    kind: runtime.kind,
    name,
    image: backend.image,
    command: request.command,
    args: request.args,
    env: request.env,
    clientEnv,
    ...(request.cwd !== undefined && { cwd: request.cwd }),
    stateDir,
    read,
    write,
    network,
    limits: profile.limits,
    ...(uid !== undefined && { uid }),
    ...(gid !== undefined && { gid }),
  });
  let removed: Promise<void> | undefined;
  return {
    ...command,
    backend: 'container',
    stateDir,
    warnings: [],
    summary: `container ${backend.image} (${runtime.kind}, ${name}); network ${network}; limits held by the runtime's cgroup`,
    release: () => {
      removed ??= run(runtime.path, ['rm', '-f', name], clientEnv).then(() => undefined);
      return removed;
    },
  };
}

/** Whether the runtime runs containers here (docker: its engine answers); kept once it does. */
function ensureWorking(
  runtime: { kind: 'docker' | 'podman'; path: string },
  env: Record<string, string>,
  server: string,
): Promise<void> {
  const key = `${runtime.path}\0${env.DOCKER_HOST ?? ''}\0${env.CONTAINER_HOST ?? ''}`;
  let known = working.get(key);
  if (!known) {
    const format = runtime.kind === 'docker' ? '{{.Server.Version}}' : '{{.Client.Version}}';
    known = run(runtime.path, ['version', '--format', format], env).then((ran) => {
      if (ran.ok && ran.stdout.trim() !== '') return;
      working.delete(key);
      const said = (ran.stderr.trim() || ran.error || 'no answer').split('\n').slice(0, 3).join(' ');
      throw new SwitchboardError(
        'SANDBOX_UNAVAILABLE',
        `Server "${server}" runs in a container, and ${runtime.kind} (${runtime.path}) cannot run containers here: ${said}. ` +
          (runtime.kind === 'docker'
            ? 'Start the Docker engine (or set DOCKER_HOST to one that runs), '
            : 'Check "podman info", ') +
          'or use "backend": "bubblewrap". It was not started unsandboxed.',
        { details: { server, reason: 'container-runtime-unavailable', runtime: runtime.path } },
      );
    });
    working.set(key, known);
  }
  return known;
}

function run(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ ok: boolean; stdout: string; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(file, [...args], { timeout: 15_000, env }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout, stderr, ...(error && { error: error.message }) }),
    );
  });
}
