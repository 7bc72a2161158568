import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { describeIssue } from './issue-text.js';

/**
 * The `governance` section of a config file: how calls are approved, which rules allow or deny
 * tools, how suspicious tool definitions are treated, and how long a person has to answer.
 * The policy layer gives these words their meaning; here they are only validated and
 * defaulted.
 *
 * ```jsonc
 * "governance": {
 *   "mode": "auto-edit",
 *   "profile": "interactive",
 *   "rules": [{ "server": "github", "tool": "delete_*", "effect": "deny" }],
 *   "scan": "block",
 *   "approvalTimeoutMs": 300000
 * }
 * ```
 */

export const APPROVAL_MODES = ['read-only', 'auto-edit', 'full-auto'] as const;
export const PROFILES = ['interactive', 'daemon', 'public_gateway'] as const;
export const SCAN_POLICIES = ['block', 'warn', 'off'] as const;

export type ApprovalModeName = (typeof APPROVAL_MODES)[number];
export type ProfileName = (typeof PROFILES)[number];
export type ScanPolicyName = (typeof SCAN_POLICIES)[number];

/** Which hosts servers registered at run time (API, agents) may point at. */
export interface NetworkConfig {
  /** Host names or `*.example.com` patterns; when set, every other host is refused. */
  readonly allowedHosts?: readonly string[];
  /** Loopback and private addresses. Default: allowed in the interactive profile only. */
  readonly allowPrivate?: boolean;
}

/**
 * Whether servers registered at run time (API, JSON lines, agents) may run unsandboxed.
 * `required`: every registered local server runs sandboxed, and `"sandbox": "off"` is refused;
 * `optional`: a person (API, JSON lines) may register one with `"sandbox": "off"` — an agent
 * never may. Either way a registration that says nothing gets the default profile.
 */
export type RegistrationSandbox = 'required' | 'optional';

export interface RuleConfig {
  readonly server: string;
  readonly tool: string;
  readonly effect: 'allow' | 'deny';
}

/** The normalized governance settings (every field defaulted). */
export interface GovernanceConfig {
  /** The approval mode of a session that does not choose one. */
  readonly mode: ApprovalModeName;
  readonly profile: ProfileName;
  readonly rules: readonly RuleConfig[];
  /** What a suspicious tool definition gets: rejected, a warning, or nothing. */
  readonly scan: ScanPolicyName;
  /** How long an approval or elicitation waits for a person before it is declined. */
  readonly approvalTimeoutMs: number;
  readonly network: NetworkConfig;
  readonly sandbox: { readonly registrations: RegistrationSandbox };
}

export const DEFAULT_GOVERNANCE: GovernanceConfig = {
  mode: 'auto-edit',
  profile: 'interactive',
  rules: [],
  scan: 'block',
  approvalTimeoutMs: 5 * 60_000,
  network: {},
  sandbox: { registrations: 'required' },
};

const ruleSchema = z.strictObject({
  server: z.string().min(1).describe('Server name glob (`*`, `?`).'),
  tool: z.string().min(1).describe("Tool name glob (the server's own tool name)."),
  effect: z.enum(['allow', 'deny']),
});

export const governanceSchema = z
  .strictObject({
    mode: z
      .enum(APPROVAL_MODES)
      .optional()
      .describe(
        'Default approval mode: read-only asks before every call, auto-edit asks unless the tool is read-only, full-auto never asks.',
      ),
    profile: z
      .enum(PROFILES)
      .optional()
      .describe('daemon and public_gateway deny every call that no allow rule names.'),
    rules: z.array(ruleSchema).optional().describe('Allow and deny rules; a deny rule wins.'),
    scan: z
      .enum(SCAN_POLICIES)
      .optional()
      .describe('Injection scanning of tool definitions: block (reject the tool), warn, or off.'),
    approvalTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(24 * 3600_000)
      .optional()
      .describe('How long an approval or elicitation waits before it is declined, ms.'),
    network: z
      .strictObject({
        allowedHosts: z.array(z.string().min(1)).optional(),
        allowPrivate: z.boolean().optional(),
      })
      .optional()
      .describe(
        'Where servers registered at run time may point: metadata and link-local addresses are always refused, private ones unless allowed.',
      ),
    sandbox: z
      .strictObject({
        registrations: z.enum(['required', 'optional']).optional().meta({
          default: 'required',
          description:
            'required: local servers registered at run time always run sandboxed; optional: a person (API, JSON lines) may register one with "sandbox": "off", an agent never.',
        }),
      })
      .optional()
      .describe('The sandbox of local servers registered at run time.'),
  })
  .describe('How tool calls are approved and screened.');

/** Validates a raw `governance` section; unset fields stay unset (for merging). */
export function parseGovernance(raw: unknown, file: string): Partial<GovernanceConfig> {
  const parsed = governanceSchema.safeParse(raw);
  if (!parsed.success) {
    // The issue's own words, with unknown keys quoted shortly (a key may be huge).
    const described = describeIssue(parsed.error.issues[0]!, governanceSchema);
    const field = ['governance', described.field].filter((p) => p !== '(entry)').join('.');
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${file}: field "${field}": ${described.problem} See schema/switchboard.schema.json for the allowed values.`,
      { details: { file, field } },
    );
  }
  const g = parsed.data;
  return {
    ...(g.mode && { mode: g.mode }),
    ...(g.profile && { profile: g.profile }),
    ...(g.rules && { rules: g.rules }),
    ...(g.scan && { scan: g.scan }),
    ...(g.approvalTimeoutMs !== undefined && { approvalTimeoutMs: g.approvalTimeoutMs }),
    ...(g.network && { network: g.network }),
    ...(g.sandbox && { sandbox: { registrations: g.sandbox.registrations ?? 'required' } }),
  };
}

/**
 * Project settings win field by field; rules add up, the project's first (a deny rule wins
 * wherever it sits, so order only decides which rule a reason names).
 */
export function mergeGovernance(
  user: Partial<GovernanceConfig>,
  project: Partial<GovernanceConfig>,
): Partial<GovernanceConfig> {
  const rules = [...(project.rules ?? []), ...(user.rules ?? [])];
  return { ...user, ...project, ...(rules.length > 0 && { rules }) };
}

export function resolveGovernance(partial: Partial<GovernanceConfig> | undefined): GovernanceConfig {
  return { ...DEFAULT_GOVERNANCE, ...partial };
}
