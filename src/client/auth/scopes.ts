import { computeScopeUnion } from '@modelcontextprotocol/client';

/**
 * Which scopes to ask for. Pure. MCP authorization spec, "Scope Selection Strategy": the
 * `scope` of the `WWW-Authenticate` challenge, else every `scopes_supported` of the protected
 * resource metadata, else no `scope` at all. Scopes configured for the server stand in for
 * the resource metadata's (the person chose them). SEP-2207: `offline_access` (to get a
 * refresh token) is added only when the authorization server lists it, and never sent when
 * it does not.
 */

export const OFFLINE_ACCESS = 'offline_access';

export interface ScopeInputs {
  /** The `scope` of the challenge that started this authorization. */
  readonly challenged?: string;
  readonly configured?: readonly string[];
  /** `scopes_supported` of the protected resource metadata. */
  readonly resourceScopes?: readonly string[];
  /** `scopes_supported` of the authorization server metadata. */
  readonly serverScopes?: readonly string[];
  /** Whether a refresh token is wanted (a person logs in; machine grants just ask again). */
  readonly wantsRefresh: boolean;
}

/** The `scope` parameter to send, or undefined to send none. */
export function chooseScope(inputs: ScopeInputs): string | undefined {
  const base =
    nonEmpty(inputs.challenged) ??
    nonEmpty(inputs.configured?.join(' ')) ??
    nonEmpty(inputs.resourceScopes?.join(' '));
  return withOfflineAccess(base, inputs.serverScopes, inputs.wantsRefresh);
}

/**
 * Adds `offline_access` when the authorization server lists it, a refresh token is wanted
 * and something else is asked for; removes it when the server does not list it.
 */
export function withOfflineAccess(
  scope: string | undefined,
  serverScopes: readonly string[] | undefined,
  wantsRefresh: boolean,
): string | undefined {
  const tokens = splitScope(scope).filter((s) => s !== OFFLINE_ACCESS);
  if (tokens.length === 0) return undefined;
  if (wantsRefresh && serverScopes?.includes(OFFLINE_ACCESS)) tokens.push(OFFLINE_ACCESS);
  return tokens.join(' ');
}

/**
 * The scope for a step-up after `403 insufficient_scope` (SEP-2350): what was asked before,
 * what the current token holds and what the challenge names, together. Undefined when the
 * union adds nothing the token does not already hold: asking again cannot help then.
 */
export function stepUpScope(
  previous: string | undefined,
  granted: string | undefined,
  challenged: string | undefined,
): string | undefined {
  const union = computeScopeUnion(previous, granted, challenged);
  const held = new Set(splitScope(granted));
  const adds = splitScope(union).some((s) => !held.has(s));
  return adds ? union : undefined;
}

export function splitScope(scope: string | undefined): string[] {
  return (scope ?? '').split(/\s+/).filter((s) => s.length > 0);
}

function nonEmpty(scope: string | undefined): string | undefined {
  return splitScope(scope).length > 0 ? splitScope(scope).join(' ') : undefined;
}
