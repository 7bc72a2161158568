import type { SandboxProfile } from '../../core/config/sandbox-config.js';
import type { SandboxedCommand } from './bwrap-args.js';
import type { SandboxNetOptions } from './sandbox-net.js';

/**
 * What a sandboxed launch is given and what it gives back, whichever backend prepares it
 * (`sandbox-launch.ts` for bubblewrap, `container-launch.ts` for a container).
 */

/** What a sandboxed launch is given. */
export interface SandboxRequest {
  readonly server: string;
  readonly profile: SandboxProfile;
  /** Command, arguments, environment and cwd as the server would run sandboxed (interpolated; env from `sandboxEnv`). */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The roots the server is offered (`file:` ones are granted read-only). */
  readonly roots: readonly { readonly uri: string }[];
  /** Where state directories live: the server's is `<stateRoot>/<server>`. */
  readonly stateRoot: string;
  /** The host's environment: `${VAR}` in the profile's paths, and where the user's caches are. */
  readonly vars: Readonly<Record<string, string | undefined>>;
  /** Where bubblewrap is looked for (default: PATH, /usr/bin, /bin). */
  readonly bwrapDirs?: readonly string[];
  /** A filtered network's judge and resolver (the host gives them); without them such a profile does not start. */
  readonly network?: SandboxNetOptions;
}

/** A launch ready to spawn, with what it cannot hold to (to log). */
export interface PreparedSandbox extends SandboxedCommand {
  /** What confines it. */
  readonly backend: 'bubblewrap' | 'container';
  readonly stateDir: string;
  readonly warnings: readonly string[];
  /** The sandbox in force, in a line: network, limits and how they hold, launcher cache. */
  readonly summary: string;
  /** Closes what the launch opened on the host (proxy sockets, cgroup). Idempotent; call once the sandbox ended. */
  release(): Promise<void>;
}
