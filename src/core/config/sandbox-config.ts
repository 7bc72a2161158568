import { isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * The `sandbox` field of a local (stdio) server entry: whether the server runs confined by the
 * kernel (Linux namespaces through bubblewrap), and what the confinement lets it reach. Here
 * only the words are validated and normalized; the client layer turns a profile into the
 * confinement (`client/sandbox/`), and docs/sandbox.md says what each part contains.
 *
 * ```jsonc
 * "sandbox": "default"                       // the default profile
 * "sandbox": { "read": ["/srv/data"], "write": ["/srv/out"], "network": "host",
 *              "limits": { "memoryMb": 512, "processes": 64, "cpuSeconds": 600 } }
 * "sandbox": "off"                           // runs as the host's user, with its reach
 * ```
 */

/** Where a sandboxed server may connect: nowhere (a network of its own with only its loopback), or the host's network. */
export type SandboxNetwork = 'none' | 'host';

/** Resource limits of a sandboxed server's processes (kernel rlimits, per process except `processes`). */
export interface SandboxLimits {
  /** Writable data of each process (RLIMIT_DATA), MiB. */
  readonly memoryMb?: number;
  /** Processes and threads in the sandbox at once (RLIMIT_NPROC). */
  readonly processes?: number;
  /** CPU time of each process (RLIMIT_CPU), seconds; the kernel ends it past that. */
  readonly cpuSeconds?: number;
}

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
  readonly limits: SandboxLimits;
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
  network: 'none',
  limits: DEFAULT_SANDBOX_LIMITS,
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

const profileSchema = z
  .strictObject({
    read: z.array(path).optional().describe('Extra paths the server may read, read-only.'),
    write: z
      .array(path)
      .optional()
      .describe('Extra paths the server may write (its own state directory always is).'),
    network: z.enum(['none', 'host']).optional().meta({
      default: 'none',
      description: "none: only a loopback of its own; host: the host's network.",
    }),
    limits: z
      .strictObject({
        memoryMb: limit(1_048_576).optional().meta({
          default: DEFAULT_SANDBOX_LIMITS.memoryMb,
          description: 'Writable memory per process, MiB.',
        }),
        processes: limit(1_000_000)
          .optional()
          .meta({ default: DEFAULT_SANDBOX_LIMITS.processes, description: 'Processes and threads at once.' }),
        cpuSeconds: limit(31_536_000).optional().describe('CPU seconds per process (default: no limit).'),
      })
      .optional()
      .describe('Resource limits.'),
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
      network: raw.network ?? 'none',
      limits: { ...DEFAULT_SANDBOX_LIMITS, ...raw.limits },
    },
  };
}

/** The raw form of a setting, as an entry is shown or stored again. Pure. */
export function rawSandbox(setting: SandboxSetting): RawSandbox {
  if (setting.kind === 'off') return 'off';
  if (setting.name === 'default') return 'default';
  const { read, write, network, limits } = setting.profile;
  return { read: [...read], write: [...write], network, limits: { ...limits } };
}

/**
 * The sandbox in force, in a line for people (the dashboard, `switchboard doctor`): "off", or
 * the profile's name and what it grants. Pure.
 */
export function describeSandbox(setting: SandboxSetting | undefined): string {
  if (setting === undefined || setting.kind === 'off') return 'off';
  const { read, write, network, limits } = setting.profile;
  const parts = [
    network === 'none' ? 'no network' : "the host's network",
    ...(read.length > 0 ? [`reads ${read.join(', ')}`] : []),
    `writes its state directory${write.length > 0 ? `, ${write.join(', ')}` : ''}`,
    ...(limits.memoryMb !== undefined ? [`${limits.memoryMb} MiB`] : []),
    ...(limits.processes !== undefined ? [`${limits.processes} processes`] : []),
    ...(limits.cpuSeconds !== undefined ? [`${limits.cpuSeconds} s CPU`] : []),
  ];
  return `${setting.name} profile (bubblewrap): ${parts.join('; ')}`;
}
