import { type ToolAnnotationsLike, type ToolRisk, type TrustLevel, toolRisk } from './tool-risk.js';

/**
 * The policy core: one call request in, one decision out — allow, ask a person, or deny —
 * with the reason in words. No catalog, no storage, no I/O: everything it needs is in the
 * request. The order of the checks is the order of precedence:
 *  1. a rule that denies wins over everything else;
 *  2. a profile that is not interactive denies unless a rule allows the tool;
 *  3. a tool whose definition changed since it was approved asks, in every mode;
 *  4. the session's "always allow" list allows;
 *  5. the approval mode decides by risk.
 */
export type ApprovalMode = 'read-only' | 'auto-edit' | 'full-auto';
export type Profile = 'interactive' | 'daemon' | 'public_gateway';
export type Verdict = 'allow' | 'ask' | 'deny';

export interface Decision {
  readonly verdict: Verdict;
  readonly reason: string;
  readonly risk: ToolRisk;
}

/** A rule: server and tool globs (`*`, `?`), and what it says. */
export interface PolicyRule {
  readonly server: string;
  readonly tool: string;
  readonly effect: 'allow' | 'deny';
}

export interface CallRequest {
  readonly server: string;
  readonly tool: string;
  readonly trust: TrustLevel;
  readonly annotations?: ToolAnnotationsLike;
  readonly mode: ApprovalMode;
  readonly profile: Profile;
  readonly rules?: readonly PolicyRule[];
  /** Tools the session said "always allow" for, as `server/tool`. */
  readonly sessionAllowlist?: ReadonlySet<string>;
  /** The tool's definition differs from the approved one (pinning). */
  readonly definitionChanged?: boolean;
}

function globMatch(glob: string, value: string): boolean {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`).test(value);
}

function ruleFor(
  request: Pick<CallRequest, 'server' | 'tool' | 'rules'>,
  effect: PolicyRule['effect'],
): PolicyRule | undefined {
  return request.rules?.find(
    (r) => r.effect === effect && globMatch(r.server, request.server) && globMatch(r.tool, request.tool),
  );
}

export function decide(request: CallRequest): Decision {
  const risk = toolRisk(request.trust, request.annotations);
  const name = `${request.server}/${request.tool}`;
  const denied = ruleFor(request, 'deny');
  if (denied)
    return { verdict: 'deny', risk, reason: `${name} is denied by the rule ${denied.server}/${denied.tool}` };
  if (request.profile !== 'interactive' && !ruleFor(request, 'allow')) {
    return {
      verdict: 'deny',
      risk,
      reason: `the ${request.profile} profile denies MCP calls that no rule allows; add an allow rule for ${name}`,
    };
  }
  if (request.definitionChanged) {
    return { verdict: 'ask', risk, reason: `the definition of ${name} changed since it was approved` };
  }
  if (request.sessionAllowlist?.has(name))
    return { verdict: 'allow', risk, reason: `${name} is always allowed in this session` };
  switch (request.mode) {
    case 'full-auto':
      return { verdict: 'allow', risk, reason: 'full-auto mode' };
    case 'auto-edit':
      return risk === 'read_only'
        ? { verdict: 'allow', risk, reason: 'auto-edit mode allows read-only tools' }
        : {
            verdict: 'ask',
            risk,
            reason: `auto-edit mode asks before a ${risk === 'dangerous' ? 'dangerous' : 'non-read-only'} tool`,
          };
    case 'read-only':
      return { verdict: 'ask', risk, reason: 'read-only mode asks before every MCP call' };
  }
}

/** What a read names in the rules: a resource read or a prompt get, as its MCP method. */
export type ReadKind = 'resources/read' | 'prompts/get';

export interface ReadRequest {
  readonly server: string;
  readonly kind: ReadKind;
  readonly profile: Profile;
  readonly rules?: readonly PolicyRule[];
}

/**
 * A resource read or a prompt get. They change nothing on the server, so no approval mode
 * asks (asking each time context is read is a feature nobody would keep on), but they carry
 * the same capability as a call: a rule that denies wins, and a profile that is not
 * interactive denies unless a rule allows them. Rules name them by method as the `tool`
 * (`resources/read`, `prompts/get`), which no MCP tool name can be (a tool name has no `/`),
 * so `"tool": "*"` covers a server's reads as it covers its tools.
 */
export function decideRead(request: ReadRequest): Decision {
  const risk: ToolRisk = 'read_only';
  const lookup = {
    server: request.server,
    tool: request.kind,
    ...(request.rules && { rules: request.rules }),
  };
  const name = `${request.server}/${request.kind}`;
  const denied = ruleFor(lookup, 'deny');
  if (denied)
    return { verdict: 'deny', risk, reason: `${name} is denied by the rule ${denied.server}/${denied.tool}` };
  if (request.profile !== 'interactive' && !ruleFor(lookup, 'allow')) {
    return {
      verdict: 'deny',
      risk,
      reason: `the ${request.profile} profile denies reads that no rule allows; add an allow rule for ${name}`,
    };
  }
  return { verdict: 'allow', risk, reason: 'reads change nothing on the server' };
}
