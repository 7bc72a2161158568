import { isAbsolute } from 'node:path';
import { z } from 'zod';
import {
  describeSandboxNetwork,
  NO_NETWORK,
  normalizeSandboxNetwork,
  rawSandboxNetwork,
  type SandboxNetwork,
  sandboxNetworkSchema,
} from './sandbox-network.js';

export type { FilteredNetwork, SandboxHost, SandboxLoopback, SandboxNetwork } from './sandbox-network.js';

/**
 * The `sandbox` field of a local (stdio) server entry: whether the server runs confined by the
 * kernel (Linux namespaces through bubblewrap), and what the confinement lets it reach. Here
 * only the words are validated and normalized; the client layer turns a profile into the
 * confinement (`client/sandbox/`), and docs/sandbox.md says what each part contains.
 *
 * ```jsonc
 * "sandbox": "default"                       // the default profile
 * "sandbox": { "read": ["/srv/data"], "write": ["/srv/out"],
 *              "network": { "hosts": ["api.github.com"] }, "env": ["GITHUB_TOKEN"],
 *              "limits": { "memoryMb": 512, "processes": 64, "cpus": 1, "cpuSeconds": 600 } }
 * "sandbox": "off"                           // runs as the host's user, with its reach
 * ```
 */

/**
 * Resource limits of a sandboxed server. Where the host can make a cgroup for it, memory,
 * processes and CPU share hold for its whole tree (and for root); elsewhere kernel rlimits
 * per process (docs/sandbox.md says which holds where).
 */
export interface SandboxLimits {
  /** Memory of the whole tree (cgroup memory.max), and writable data of each process (RLIMIT_DATA), MiB. */
  readonly memoryMb?: number;
  /** Processes and threads in the sandbox at once (cgroup pids.max; else RLIMIT_NPROC). */
  readonly processes?: number;
  /** CPU time of each process (RLIMIT_CPU), seconds; the kernel ends it past that. */
  readonly cpuSeconds?: number;
  /** CPU share of the whole tree, in CPUs (cgroup cpu.max; 0.5 is half of one CPU). Needs a cgroup. */
  readonly cpus?: number;
}

/**
 * The host variables a sandboxed server inherits by name: what a program needs to find
 * programs and speak the user's language. Its `HOME` and `TMPDIR` are its own; the entry's
 * `env` is passed as written; the profile's `env` adds names.
 */
export const DEFAULT_SANDBOX_ENV: readonly string[] = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
];

/**
 * What a launcher (`npx`, `uvx`) in the sandbox caches into: `shared` lays the user's package
 * cache under the server's own, read-only (bubblewrap 0.9+), so what the user has cached starts
 * offline and nothing the server writes reaches the user's; `own` gives it its own cache only.
 */
export type LauncherCache = 'shared' | 'own';

/**
 * What confines the server: bubblewrap (Linux namespaces around the host's own programs, the
 * default), or a container of `image` run by docker or podman (the server's command runs inside
 * the image; client/sandbox/container-args.ts maps the profile onto `run`'s options).
 */
export type SandboxBackend =
  | { readonly kind: 'bubblewrap' }
  | { readonly kind: 'container'; readonly image: string; readonly runtime?: 'docker' | 'podman' };

/**
 * What a sandboxed server may reach beyond what every sandbox has (the system's programs and
 * libraries, read-only; its own state directory, writable; a private /tmp). Paths are absolute
 * and may hold `${VAR}` references, expanded when the server starts.
 */
export interface SandboxProfile {
  /** Extra paths it may read (and run), read-only. */
  readonly read: readonly string[];
  /** Extra paths it may write (and read). */
  readonly write: readonly string[];
  readonly network: SandboxNetwork;
  /** Host variables inherited by name beyond DEFAULT_SANDBOX_ENV (`NAME` or a prefix `NAME_*`). */
  readonly env: readonly string[];
  readonly limits: SandboxLimits;
  readonly launcherCache: LauncherCache;
  readonly backend: SandboxBackend;
}

/** A server's sandbox: none, or a profile (`default` names the built-in one). */
export type SandboxSetting =
  | { readonly kind: 'off' }
  | { readonly kind: 'profile'; readonly name: 'default' | 'custom'; readonly profile: SandboxProfile };

/**
 * The default profile's limits: enough for a Node or Python server and the helpers it starts,
 * small enough that a fork bomb or a runaway allocation ends in the sandbox. No CPU limit by
 * default: a long-lived server legitimately accumulates CPU time, and RLIMIT_CPU kills it.
 */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryMb: 2048, processes: 256 };

/** The default profile: nothing beyond what every sandbox has, no network. */
export const DEFAULT_SANDBOX_PROFILE: SandboxProfile = {
  read: [],
  write: [],
  network: NO_NETWORK,
  env: [],
  limits: DEFAULT_SANDBOX_LIMITS,
  launcherCache: 'shared',
  backend: { kind: 'bubblewrap' },
};

/** The default profile as a setting (what a registration without `sandbox` gets). */
export const DEFAULT_SANDBOX: SandboxSetting = {
  kind: 'profile',
  name: 'default',
  profile: DEFAULT_SANDBOX_PROFILE,
};

const path = z
  .string()
  .min(1)
  .refine((p) => p.includes('$') || isAbsolute(p), {
    message: 'must be an absolute path (e.g. "/srv/data" or "${HOME}/projects")',
  });
const limit = (max: number) => z.number().int().positive().max(max);
const envName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*\*?$/,
    'must be a variable name, or a prefix ending in * (e.g. "GITHUB_TOKEN", "AWS_*")',
  );

const profileSchema = z
  .strictObject({
    read: z.array(path).optional().describe('Extra paths the server may read, read-only.'),
    write: z
      .array(path)
      .optional()
      .describe('Extra paths the server may write (its own state directory always is).'),
    network: sandboxNetworkSchema.optional(),
    env: z
      .array(envName)
      .optional()
      .describe(
        `Host variables it inherits by name, beyond ${DEFAULT_SANDBOX_ENV.join(', ')} (the entry's own env always passes).`,
      ),
    launcherCache: z.enum(['shared', 'own']).optional().meta({
      default: 'shared',
      description:
        "npx/uvx: shared lays the user's package cache read-only under the server's own (bubblewrap 0.9+); own: its own cache only.",
    }),
    limits: z
      .strictObject({
        memoryMb: limit(1_048_576).optional().meta({
          default: DEFAULT_SANDBOX_LIMITS.memoryMb,
          description: 'Memory of the whole sandbox (cgroup) and writable memory per process, MiB.',
        }),
        processes: limit(1_000_000)
          .optional()
          .meta({ default: DEFAULT_SANDBOX_LIMITS.processes, description: 'Processes and threads at once.' }),
        cpuSeconds: limit(31_536_000).optional().describe('CPU seconds per process (default: no limit).'),
        cpus: z
          .number()
          .positive()
          .max(1024)
          .optional()
          .describe('CPU share of the whole sandbox, in CPUs (e.g. 0.5); needs a cgroup.'),
      })
      .optional()
      .describe('Resource limits.'),
    backend: z.enum(['bubblewrap', 'container']).optional().meta({
      default: 'bubblewrap',
      description:
        'bubblewrap (Linux namespaces), or container: the server runs in "image" (docker or podman).',
    }),
    image: z
      .string()
      .min(1)
      .max(500)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/, 'must be an image reference, e.g. "node:22-slim"')
      .optional()
      .describe('backend "container": the image the server runs in (its command runs inside it).'),
    runtime: z
      .enum(['docker', 'podman'])
      .optional()
      .describe('backend "container": which runtime (default: podman if installed, else docker).'),
  })
  .superRefine((raw, ctx) => {
    const container = raw.backend === 'container';
    if (container && raw.image === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['image'],
        message: 'is required with "backend": "container" (e.g. "node:22-slim")',
      });
    for (const field of ['image', 'runtime'] as const)
      if (!container && raw[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'applies only with "backend": "container"' });
    if (container && raw.network !== undefined && !['none', 'host'].includes(raw.network as string))
      ctx.addIssue({
        code: 'custom',
        path: ['network'],
        message:
          'must be "none" or "host" with "backend": "container" (a filtered network runs its relay with the host\'s Node, which an image need not have)',
      });
  })
  .describe('A profile: the default one plus what it grants.');

/** The raw `sandbox` field (zod). */
export const sandboxSchema = z
  .union([z.enum(['off', 'default']), profileSchema])
  .describe(
    'Run a local server confined by the kernel (bubblewrap): "default", a profile object, or "off". Default: "off" for config-file entries, "default" for servers registered at run time.',
  );

export type RawSandbox = z.input<typeof sandboxSchema>;

/** The normalized setting of a raw `sandbox` value (already validated by the schema). Pure. */
export function normalizeSandbox(raw: z.output<typeof sandboxSchema>): SandboxSetting {
  if (raw === 'off') return { kind: 'off' };
  if (raw === 'default') return DEFAULT_SANDBOX;
  return {
    kind: 'profile',
    name: 'custom',
    profile: {
      read: raw.read ?? [],
      write: raw.write ?? [],
      network: normalizeSandboxNetwork(raw.network),
      env: raw.env ?? [],
      limits: { ...DEFAULT_SANDBOX_LIMITS, ...raw.limits },
      launcherCache: raw.launcherCache ?? 'shared',
      backend:
        raw.backend === 'container' && raw.image !== undefined
          ? { kind: 'container', image: raw.image, ...(raw.runtime && { runtime: raw.runtime }) }
          : { kind: 'bubblewrap' },
    },
  };
}

/** The raw form of a setting, as an entry is shown or stored again. Pure. */
export function rawSandbox(setting: SandboxSetting): RawSandbox {
  if (setting.kind === 'off') return 'off';
  if (setting.name === 'default') return 'default';
  const { read, write, network, env, limits, launcherCache, backend } = setting.profile;
  return {
    read: [...read],
    write: [...write],
    network: rawSandboxNetwork(network),
    ...(env.length > 0 && { env: [...env] }),
    limits: { ...limits },
    ...(launcherCache !== 'shared' && { launcherCache }),
    ...(backend.kind === 'container' && {
      backend: 'container' as const,
      image: backend.image,
      ...(backend.runtime && { runtime: backend.runtime }),
    }),
  };
}

/**
 * The sandbox in force, in a line for people (the dashboard, `switchboard doctor`): "off", or
 * the profile's name and what it grants. Pure.
 */
export function describeSandbox(setting: SandboxSetting | undefined): string {
  if (setting === undefined || setting.kind === 'off') return 'off';
  const { read, write, network, env, limits } = setting.profile;
  const parts = [
    describeSandboxNetwork(network),
    ...(read.length > 0 ? [`reads ${read.join(', ')}`] : []),
    `writes its state directory${write.length > 0 ? `, ${write.join(', ')}` : ''}`,
    ...(limits.memoryMb !== undefined ? [`${limits.memoryMb} MiB`] : []),
    ...(limits.processes !== undefined ? [`${limits.processes} processes`] : []),
    ...(limits.cpuSeconds !== undefined ? [`${limits.cpuSeconds} s CPU`] : []),
    ...(limits.cpus !== undefined ? [`${limits.cpus} CPU`] : []),
    ...(env.length > 0 ? [`inherits ${env.join(', ')}`] : []),
  ];
  const { backend } = setting.profile;
  const how =
    backend.kind === 'container'
      ? `container ${backend.image}${backend.runtime ? ` via ${backend.runtime}` : ''}`
      : 'bubblewrap';
  return `${setting.name} profile (${how}): ${parts.join('; ')}`;
}
