import type { RegistrationSandbox } from '../core/config/governance-config.js';
import { DEFAULT_SANDBOX, type SandboxSetting } from '../core/config/sandbox-config.js';

/**
 * The sandbox a local server registered at run time gets. Registration is code execution with
 * the host's reach for whoever may register (an API caller, a JSON-lines client, an agent that
 * had `register_mcp` approved), so such a server runs sandboxed unless a person with the right
 * to do so says otherwise: `governance.sandbox.registrations` is `optional` (only the config
 * file's author can set that) *and* the registration comes from a person, not an agent. An
 * entry that says nothing gets the default profile. Pure.
 */

/** Who registers: a person (the HTTP API, JSON lines, the CLI) or an agent (the management tools). */
export type Registrant = 'person' | 'agent';

/** The sandbox to run a registration in, or why it is refused. */
export type RegistrationSandboxDecision =
  | { readonly allowed: true; readonly sandbox: SandboxSetting }
  | { readonly allowed: false; readonly reason: string };

const PEOPLE: ReadonlySet<string> = new Set(['api', 'jsonl', 'cli']);

/** Who a change's `via` (`api`, `jsonl`, `agent`, `gateway`, …) is; an unknown one counts as an agent. */
export function registrantOf(via: string | undefined): Registrant {
  return via !== undefined && PEOPLE.has(via) ? 'person' : 'agent';
}

export function decideRegistrationSandbox(
  requested: SandboxSetting | undefined,
  policy: RegistrationSandbox,
  by: Registrant,
): RegistrationSandboxDecision {
  if (requested === undefined) return { allowed: true, sandbox: DEFAULT_SANDBOX };
  if (requested.kind !== 'off') return { allowed: true, sandbox: requested };
  if (policy === 'optional' && by === 'person') return { allowed: true, sandbox: requested };
  return {
    allowed: false,
    reason:
      policy === 'required'
        ? 'local servers registered at run time run sandboxed (governance.sandbox.registrations is "required"). Remove "sandbox": "off" and grant what the server needs in a profile, or put the server in a config file, whose entries are yours to leave unsandboxed.'
        : 'an agent may not register a local server unsandboxed. Remove "sandbox": "off"; a person may register it so through the API or JSON lines.',
  };
}
