import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { descendants, type Launched, launch } from './processes.js';
import { type Era, openRawSession } from './raw-client.js';
import type { SdkEndpoint } from './sdk-client.js';

/**
 * The targets, as the issue names them, and (f) the bare relay, a reference (bare-relay.ts);
 * (g) and (h) the gateway with OpenTelemetry on (OTLP/HTTP to a sink in the bench process):
 * every span sampled, and the default sampler; (i) the gateway built from another git ref
 * (`--base-ref`), telemetry off, to show that (c) with telemetry off costs what it did.
 */
export const TARGET_KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

export const TARGET_LABELS: Readonly<Record<TargetKey, string>> = {
  a: 'direct stdio',
  b: 'SDK HTTP floor',
  c: 'switchboard serve',
  d: 'mcp-proxy',
  e: 'supergateway',
  f: 'bare relay',
  g: 'switchboard, telemetry (every span)',
  h: 'switchboard, telemetry (default sampler)',
  i: 'switchboard @ base ref',
};

/** The gateway targets, which run the same bundle (but (i)) with different settings. */
export const GATEWAY_KEYS: readonly TargetKey[] = ['c', 'g', 'h', 'i'];

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The bundles every target runs with plain `node`, in a temp dir. */
export interface Bundles {
  readonly dir: string;
  readonly upstream: string;
  readonly bareRelay: string;
  readonly switchboard: string;
  /** Why the `switchboard` bundle could not be built (then target (c) fails to start). */
  readonly switchboardError?: string;
  /** The CLI built from `--base-ref` (target (i)), or why it could not be. */
  readonly baseSwitchboard?: string;
  readonly baseError?: string;
  remove(): Promise<void>;
}

/**
 * Bundles the echo upstream and the `switchboard` CLI with esbuild (dependencies external),
 * into a temp dir whose `node_modules` links to the project's, so the processes start without
 * tsx and their RSS is their own. A CLI that does not build fails target (c) only.
 */
export async function buildBundles(options: { readonly baseRef?: string } = {}): Promise<Bundles> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-gateway-bench-'));
  await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const bundle = (entry: string, outfile: string) =>
    build({
      entryPoints: [join(repoRoot, entry)],
      outfile,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      bundle: true,
      packages: 'external',
      logLevel: 'silent',
    });
  const upstream = join(dir, 'echo-upstream.mjs');
  const bareRelay = join(dir, 'bare-relay.mjs');
  const switchboard = join(dir, 'switchboard.mjs');
  const [upstreamBuilt, relayBuilt, switchboardBuilt] = await Promise.allSettled([
    bundle('bench/gateway/echo-upstream.ts', upstream),
    bundle('bench/gateway/bare-relay.ts', bareRelay),
    bundle('src/cli/main.ts', switchboard),
  ]);
  const remove = () => rm(dir, { recursive: true, force: true });
  const base = options.baseRef === undefined ? undefined : await buildBase(dir, options.baseRef);
  for (const built of [upstreamBuilt, relayBuilt]) {
    if (built.status === 'rejected') {
      await remove();
      throw built.reason;
    }
  }
  return {
    dir,
    upstream,
    bareRelay,
    switchboard,
    ...(switchboardBuilt.status === 'rejected' && {
      switchboardError: `esbuild could not bundle src/cli/main.ts: ${errorText(switchboardBuilt.reason)}`,
    }),
    ...base,
    remove,
  };
}

/**
 * The CLI as it was at `ref`: its `src/` taken out of git into the bundles' dir (whose
 * node_modules link resolves its packages) and bundled as (c)'s is.
 */
async function buildBase(
  dir: string,
  ref: string,
): Promise<{ baseSwitchboard: string } | { baseError: string }> {
  const tree = join(dir, 'base');
  try {
    await mkdir(tree, { recursive: true });
    const archive = execFileSync('git', ['-C', repoRoot, 'archive', '--format=tar', ref, 'src'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', tree], { input: archive });
    const out = join(dir, 'switchboard-base.mjs');
    await build({
      entryPoints: [join(tree, 'src/cli/main.ts')],
      outfile: out,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      bundle: true,
      packages: 'external',
      logLevel: 'silent',
      nodePaths: [join(repoRoot, 'node_modules')],
    });
    return { baseSwitchboard: out };
  } catch (error) {
    return { baseError: `could not build the CLI at ${ref}: ${errorText(error)}` };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A started target: where to reach it and which process to watch. */
export interface RunningTarget {
  readonly key: TargetKey;
  /** For the SDK driver; target (a) is a stdio command the client spawns per session. */
  readonly endpoint: SdkEndpoint;
  /** The process that listens (absent for (a), whose process belongs to each session). */
  readonly process?: Launched;
  /** Its descendants now (the upstream of a bridge), for the children's RSS. */
  children(): number[];
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly bundles: Bundles;
  readonly timeoutMs: number;
  /** Write a V8 CPU profile of the gateway process into this directory when it stops. */
  readonly cpuProfDir?: string;
  /** Extra Node options for the gateway process (`--trace-gc`, heap sizes), for investigations. */
  readonly gatewayNodeArgs?: readonly string[];
  /** The OTLP/HTTP endpoint the telemetry targets (g, h) export to. */
  readonly otlpEndpoint?: string;
}

/** What each gateway target adds to the gateway's environment. */
function gatewayEnv(key: TargetKey, options: StartOptions): Record<string, string> {
  if (key !== 'g' && key !== 'h') return {};
  if (options.otlpEndpoint === undefined) throw new Error('the telemetry targets need an OTLP sink');
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
    OTEL_SERVICE_NAME: `bench-${key}`,
    ...(key === 'g' && { OTEL_TRACES_SAMPLER: 'always_on' }),
  };
}

/** Starts one target and waits until it answers an `echo` call (2025-era session). */
export async function startTarget(key: TargetKey, options: StartOptions): Promise<RunningTarget> {
  const { upstream } = options.bundles;
  const node = process.execPath;
  if (key === 'a') {
    return {
      key,
      endpoint: { kind: 'stdio', command: node, args: [upstream] },
      children: () => [],
      stop: async () => {},
    };
  }
  let proc: Launched | undefined;
  let url: string;
  let cleanup = async () => {};
  try {
    if (key === 'b') {
      proc = launch('floor', node, [upstream, '--http']);
      url = (JSON.parse((await proc.waitForLine(/^\{.*\}$/, options.timeoutMs))[0]) as { url: string }).url;
    } else if (GATEWAY_KEYS.includes(key)) {
      const started = await startGateway(options, key);
      proc = started.proc;
      url = started.url;
      cleanup = started.cleanup;
    } else if (key === 'f') {
      proc = launch('bare relay', node, [options.bundles.bareRelay, upstream]);
      url = (await proc.waitForLine(/^listening (\S+)$/, options.timeoutMs))[1]!;
    } else {
      const port = await freePort();
      url = `http://127.0.0.1:${port}/mcp`;
      proc =
        key === 'd'
          ? launch('mcp-proxy', node, [
              join(repoRoot, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'),
              '--port',
              String(port),
              '--host',
              '127.0.0.1',
              '--',
              node,
              upstream,
            ])
          : // Per-message logging is switched off so supergateway is not charged for its log lines.
            launch('supergateway', node, [
              join(repoRoot, 'node_modules/supergateway/dist/index.js'),
              '--stateful',
              '--outputTransport',
              'streamableHttp',
              '--port',
              String(port),
              '--logLevel',
              'none',
              '--stdio',
              `${node} ${upstream}`,
            ]);
      await waitForPort(port, proc, options.timeoutMs);
    }
    await waitForEcho(url, proc, options.timeoutMs);
  } catch (error) {
    const tail = proc?.tail() ?? '';
    await proc?.stop(500);
    await cleanup();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${tail ? `\n${tail}` : ''}`);
  }
  const running = proc;
  return {
    key,
    endpoint: { kind: 'http', url },
    process: running,
    children: () => descendants(running.pid),
    stop: async () => {
      // A profiled gateway must exit on its own to write the profile: SIGTERM, then wait.
      await running.stop(options.cpuProfDir !== undefined && GATEWAY_KEYS.includes(key) ? 15_000 : 3_000);
      await cleanup();
    },
  };
}

/** `switchboard serve` from its bundle, with a temp config, data dir and home. */
async function startGateway(
  options: StartOptions,
  key: TargetKey,
): Promise<{ proc: Launched; url: string; cleanup: () => Promise<void> }> {
  if (options.bundles.switchboardError !== undefined) throw new Error(options.bundles.switchboardError);
  if (key === 'i' && options.bundles.baseSwitchboard === undefined)
    throw new Error(options.bundles.baseError ?? 'target (i) needs --base-ref');
  const cli = key === 'i' ? options.bundles.baseSwitchboard! : options.bundles.switchboard;
  const root = join(options.bundles.dir, `gateway-${process.pid}-${Date.now()}`);
  const configDir = join(root, 'project');
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  await Promise.all([configDir, dataDir, home].map((d) => mkdir(d, { recursive: true })));
  const generous = { burst: 1_000_000, perSecond: 1_000_000 };
  const config = {
    servers: { echo: { command: process.execPath, args: [options.bundles.upstream] } },
    governance: { mode: 'full-auto' },
    gateway: {
      host: '127.0.0.1',
      port: 0,
      auth: { mode: 'none' },
      consent: 'off',
      names: 'passthrough-unique',
      rateLimit: { perIp: generous, perPrincipal: generous },
    },
  };
  await writeFile(join(configDir, 'switchboard.json'), JSON.stringify(config, null, 2));
  const nodeArgs = [
    ...(options.gatewayNodeArgs ?? []),
    ...(options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : []),
  ];
  const proc = launch(
    'switchboard',
    process.execPath,
    [...nodeArgs, cli, '--config', configDir, '--data-dir', dataDir, 'serve'],
    // A home of its own, so no user config of this machine changes what is measured; no
    // OTEL_* of the bench's environment, only what the target is about.
    {
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_'))),
        HOME: home,
        ...gatewayEnv(key, options),
      },
      cwd: configDir,
    },
  );
  try {
    const match = await proc.waitForLine(/^listening (\S+)$/, options.timeoutMs);
    return { proc, url: match[1]!, cleanup: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    const tail = proc.tail();
    await proc.stop(500);
    await rm(root, { recursive: true, force: true });
    throw new Error(`${errorText(error)}${tail ? `\n${tail}` : ''}`);
  }
}

/** A port that was free a moment ago (for the bridges, which take a port number). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, proc: Launched, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  while (performance.now() < deadline && !exited) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    exited
      ? `${proc.name} exited before listening`
      : `${proc.name}: port ${port} not open within ${timeoutMs} ms`,
  );
}

/** Until a 2025-era session answers `echo` (a gateway may listen before its upstream is up). */
async function waitForEcho(url: string, proc: Launched, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 0; performance.now() < deadline && attempt < 1000; attempt++) {
    try {
      const session = await openRawSession({ url, era: 'legacy', timeoutMs: 5000, maxSockets: 1 });
      try {
        await session.call();
        return;
      } finally {
        await session.close();
      }
    } catch (error) {
      last = error;
      if (proc.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${proc.name} did not answer echo: ${last instanceof Error ? last.message : String(last)}`);
}

/** What one era's probe found: why the target does not speak it, or how long a call took. */
export type EraProbe = { readonly problem: string } | { readonly msPerCall: number };

/**
 * Whether a target speaks `era`: one session, five calls. The fastest call is kept, so a
 * target that does something slow on every request (starts a process) can be measured lightly
 * instead of for minutes, while one slow first call on a busy machine does not count.
 */
export async function probeEra(url: string, era: Era, timeoutMs: number): Promise<EraProbe> {
  try {
    const session = await openRawSession({ url, era, timeoutMs, maxSockets: 1 });
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await session.call();
        times.push(performance.now() - t);
      }
      return { msPerCall: Math.min(...times) };
    } finally {
      await session.close();
    }
  } catch (error) {
    return { problem: errorText(error) };
  }
}
