import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../../../src/client/sandbox/bwrap-probe.js';
import { containerCommand, containerName } from '../../../src/client/sandbox/container-args.js';
import { describeSandbox, normalizeSandbox, sandboxSchema } from '../../../src/core/config/sandbox-config.js';
import { sandboxProbeBin } from '../../fixtures/paths.js';
import {
  makePlace,
  ProbeServers,
  probe,
  removePlace,
  type SandboxPlace,
  sandboxLine,
} from './probe-harness.js';

/**
 * The container backend (`"backend": "container"`): the profile as `docker run`'s options
 * (pure), the config's refusals, a runtime that cannot run containers refused with what to do
 * (docker's client without its engine, where that is what is installed), and — where a runtime
 * runs containers and the image is already present — the witness server confined in one.
 */
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const IMAGE = process.env.SWITCHBOARD_TEST_IMAGE ?? 'node:22-slim';

function runtimeState(): { runtime?: string; works: boolean; image: boolean; why: string } {
  const runtime = ['podman', 'docker']
    .map((name) => findExecutable(name, (process.env.PATH ?? '').split(':')))
    .find(Boolean);
  if (!runtime) return { works: false, image: false, why: 'neither podman nor docker is installed' };
  try {
    execFileSync(runtime, ['version'], { stdio: 'pipe', timeout: 15_000 });
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? error)
      .trim()
      .split('\n')[0];
    return { runtime, works: false, image: false, why: `${runtime} cannot run containers here (${said})` };
  }
  try {
    execFileSync(runtime, ['image', 'inspect', IMAGE], { stdio: 'pipe', timeout: 15_000 });
    return { runtime, works: true, image: true, why: '' };
  } catch {
    return {
      runtime,
      works: true,
      image: false,
      why: `the image ${IMAGE} is not present (tests pull nothing)`,
    };
  }
}
const state = runtimeState();
if (!state.image)
  process.stderr.write(
    `\n*** Container sandbox run SKIPPED: ${state.why}. The refusal and the command line are tested.\n\n`,
  );

describe('the container backend’s command line', () => {
  const launch = {
    runtime: '/usr/bin/docker',
    kind: 'docker' as const,
    name: containerName('my server', 42, 1),
    image: 'node:22-slim',
    command: 'node',
    args: ['/srv/app/index.js'],
    env: { PATH: '/host/bin', LANG: 'C', TOKEN: 'secret-value' },
    clientEnv: { PATH: '/usr/bin', HOME: '/home/me', DOCKER_HOST: 'unix:///run/docker.sock' },
    stateDir: '/data/sandbox/my server',
    read: ['/srv/app', '/srv/both'],
    write: ['/srv/out', '/srv/both'],
    network: 'none' as const,
    limits: { memoryMb: 512, processes: 64, cpus: 1.5, cpuSeconds: 600 },
    uid: 1000,
    gid: 1000,
  };

  it('maps the profile onto run’s options, confined and removable by name', () => {
    const { command, args, env } = containerCommand(launch);
    expect(command).toBe('/usr/bin/docker');
    expect(launch.name).toBe('switchboard-my_server-42-1');
    const joined = args.join(' ');
    for (const part of [
      'run -i --rm --init --name switchboard-my_server-42-1 --network none',
      '--cap-drop ALL --security-opt no-new-privileges --read-only --tmpfs /tmp',
      '--user 1000:1000',
      '--workdir /data/sandbox/my server',
      '--memory 512m --memory-swap 512m --pids-limit 64 --cpus 1.5 --ulimit cpu=600:600',
    ])
      expect(joined).toContain(part);
    expect(args).toContain('/srv/app:/srv/app:ro');
    expect(args).toContain('/srv/out:/srv/out');
    // Writable wins over read-only for a path granted both ways.
    expect(args).toContain('/srv/both:/srv/both');
    expect(args).not.toContain('/srv/both:/srv/both:ro');
    expect(args.slice(-3)).toEqual(['node:22-slim', 'node', '/srv/app/index.js']);
    // Variables go by name: no value in the process list; the image keeps its PATH.
    expect(joined).not.toContain('secret-value');
    expect(args).toContain('TOKEN');
    expect(args).not.toContain('PATH');
    expect(env).toMatchObject({ TOKEN: 'secret-value', HOME: '/data/sandbox/my server', PATH: '/usr/bin' });
    expect(args.filter((_a, i) => args[i - 1] === '-e')).toEqual([
      'HOME',
      'LANG',
      'SWITCHBOARD_STATE_DIR',
      'TMPDIR',
      'TOKEN',
    ]);
    const podman = containerCommand({ ...launch, kind: 'podman', network: 'host' }).args;
    expect(podman).toContain('--userns=keep-id');
    expect(podman.join(' ')).toContain('--network host');
  });

  it('is refused by the config without an image, with a filtered network, or with container options on bubblewrap', () => {
    const refusal = (raw: unknown) => sandboxSchema.safeParse(raw).error?.issues[0];
    expect(refusal({ backend: 'container' })).toMatchObject({
      path: ['image'],
      message: expect.stringMatching(/required/),
    });
    expect(refusal({ backend: 'container', image: 'x', network: 'loopback' })?.path).toEqual(['network']);
    expect(refusal({ image: 'node:22' })?.path).toEqual(['image']);
    expect(refusal({ backend: 'container', image: 'bad image' })?.path).toEqual(['image']);
    const setting = normalizeSandbox(
      sandboxSchema.parse({ backend: 'container', image: 'node:22-slim', runtime: 'podman' }),
    );
    expect(describeSandbox(setting)).toMatch(
      /^custom profile \(container node:22-slim via podman\): no network;/,
    );
  });
});

describe('a server in a container', () => {
  let place: SandboxPlace;
  let servers: ProbeServers;
  beforeAll(() => {
    place = makePlace('sb-sandbox-container-');
    servers = new ProbeServers(place);
  });
  afterEach(() => servers.cleanUp());
  afterAll(() => removePlace(place));

  it.skipIf(!state.runtime || state.works)(
    'is refused, and nothing runs, where the runtime cannot run containers',
    async () => {
      const { conn, logs } = servers.add('boxed', { backend: 'container', image: IMAGE });
      const failure = await conn.connect().then(
        () => undefined,
        (error: unknown) => error as { code: string; message: string; details: { reason: string } },
      );
      expect(failure).toMatchObject({
        code: 'SANDBOX_UNAVAILABLE',
        details: { reason: 'container-runtime-unavailable' },
      });
      expect(failure!.message).toMatch(/cannot run containers here/);
      expect(failure!.message).toMatch(/not started unsandboxed/);
      expect(logs.some((l) => l.text.startsWith('started process'))).toBe(false);
    },
  );

  it.skipIf(!state.image)(
    'confines the witness: no keys, no writes outside, no network, its own HOME',
    async () => {
      const { conn, logs, stateDir } = servers.add(
        'contained',
        { backend: 'container', image: IMAGE, read: [repo] },
        { command: 'node', args: [sandboxProbeBin] },
      );
      await conn.connect();
      expect(sandboxLine(logs)).toMatch(/^sandboxed \(container\); .*container node/);
      const report = await probe(conn, {
        read: [join(place.home, '.ssh', 'id_ed25519'), join(place.dataDir, 'switchboard.db')],
        write: [join(repo, 'written-from-a-container'), join(stateDir, 'own')],
        connect: [{ host: '192.0.2.1', port: 9 }],
        env: ['HOME'],
      });
      expect(report.read.map((r) => r.ok)).toEqual([false, false]);
      expect(report.write.map((w) => w.ok)).toEqual([false, true]);
      expect(existsSync(join(repo, 'written-from-a-container'))).toBe(false);
      expect(report.connect[0]!.ok).toBe(false);
      expect(report.env.HOME).toBe(stateDir);
    },
  );
});
