import { compileNameFilter, type NameFilter } from '../../host/catalog/globs.js';
import type { Principal, PrincipalGrants } from './context.js';

/** Everything: what a principal gets when its configuration restricts nothing. */
export const ALL_GRANTS: PrincipalGrants = { servers: ['*'], tools: ['*'] };

interface ToolRule {
  /** Absent: the rule applies on every allowed server. */
  readonly server?: NameFilter;
  readonly tool: NameFilter;
}

function anyOf(globs: readonly string[]): NameFilter {
  // compileNameFilter treats an empty include list as "all"; here empty means none.
  return globs.length === 0 ? () => false : compileNameFilter(globs);
}

function toolRule(glob: string): ToolRule {
  // Server names never contain "/", so the first one separates "server/tool".
  const slash = glob.indexOf('/');
  if (slash === -1) return { tool: compileNameFilter([glob]) };
  return {
    server: compileNameFilter([glob.slice(0, slash)]),
    tool: compileNameFilter([glob.slice(slash + 1)]),
  };
}

/** True when the grants allow nothing at all, which authorization refuses outright. */
export function grantsNothing(grants: PrincipalGrants): boolean {
  return grants.servers.length === 0 || grants.tools.length === 0;
}

/** Whether `grants` reach every server and every tool. */
export function grantsEverything(grants: PrincipalGrants): boolean {
  return grants.servers.includes('*') && grants.tools.includes('*');
}

/**
 * A principal whose `allows` is compiled once from its grants. `allows(server)` is true when
 * the server matches and some tool glob could apply on it; `allows(server, tool)` when both
 * match the same way a governance rule does (globs with `*` and `?`). It may manage servers
 * when its grants reach everything, unless told otherwise (`canManage`: the anonymous
 * principal's right depends on where it calls from, not on grants).
 */
export function createPrincipal(options: {
  id: string;
  kind: Principal['kind'];
  grants?: PrincipalGrants;
  claims?: Readonly<Record<string, unknown>>;
  canManage?: boolean;
}): Principal {
  const grants = options.grants ?? ALL_GRANTS;
  const canManage = options.canManage ?? grantsEverything(grants);
  const serverAllowed = anyOf(grants.servers);
  const rules = grants.tools.map(toolRule);
  return {
    id: options.id,
    kind: options.kind,
    grants,
    canManage,
    viewKey: [
      options.kind,
      options.id,
      canManage,
      grants.servers.join('\u0001'),
      grants.tools.join('\u0001'),
    ].join('\u0000'),
    ...(options.claims && { claims: options.claims }),
    allows(server: string, tool?: string): boolean {
      if (!serverAllowed(server)) return false;
      return rules.some(
        (rule) =>
          (rule.server === undefined || rule.server(server)) && (tool === undefined || rule.tool(tool)),
      );
    },
  };
}
