import type { Host } from '../../host/host.js';

/** What a meta-tool handler works with: the host, whose session it serves, and which servers it may see. */
export interface MetaContext {
  readonly host: Host;
  /** The root session (policy, allowlist and audit are per session). */
  readonly session: string;
  /** `''` for the root agent, a sub-agent's frame id otherwise (grants are per frame). */
  readonly frame: string;
  /** Servers an agent may see: every configured server whose deferral is not `hidden`. */
  visibleServers(): readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * The server a resource or prompt request is about: the one named, or the only one there is.
 * Returns a message for the model when it cannot tell.
 */
export function pickServer(
  context: MetaContext,
  named: string | undefined,
  candidates: readonly string[],
): { server: string } | { error: string } {
  const visible = context.visibleServers();
  if (named !== undefined) {
    if (!visible.includes(named)) {
      return { error: `No server named "${named}". Servers: ${visible.join(', ') || '(none)'}.` };
    }
    return { server: named };
  }
  const distinct = [...new Set(candidates.filter((s) => visible.includes(s)))];
  if (distinct.length === 1) return { server: distinct[0]! };
  if (distinct.length === 0) return { error: 'No server offers that. List first to see what exists.' };
  return { error: `Several servers could serve this (${distinct.join(', ')}); pass "server".` };
}
