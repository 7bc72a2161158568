import { qualifiedToolName } from '../../host/catalog/tool-names.js';

/**
 * Which server a name on the command line belongs to. Tools (and prompts) are written
 * `server.tool` or, as agents see them, `mcp__server__tool`; server names may themselves hold
 * dots and underscores, so the name is matched against the configured server names (the
 * longest that fits wins) rather than split at the first separator. Pure.
 */
export interface ServerRef {
  readonly server: string;
  /** What follows the server: the tool's own name (`server.tool`) or its sanitized form (`mcp__…`). */
  readonly name: string;
  /** `dotted` for `server.tool`, `qualified` for `mcp__server__tool` (look it up by the whole name). */
  readonly form: 'dotted' | 'qualified';
}

/** The server `ref` names, among `servers`; undefined when it names none (a bare tool name). */
export function splitServerRef(ref: string, servers: readonly string[]): ServerRef | undefined {
  const byLength = [...servers].sort((a, b) => b.length - a.length);
  if (ref.startsWith('mcp__')) {
    for (const server of byLength) {
      // The catalog's own prefix for the server (its name sanitized as in tool names).
      const prefix = qualifiedToolName(server, '');
      if (ref.startsWith(prefix) && ref.length > prefix.length)
        return { server, name: ref.slice(prefix.length), form: 'qualified' };
    }
  }
  for (const server of byLength) {
    if (ref.startsWith(`${server}.`) && ref.length > server.length + 1)
      return { server, name: ref.slice(server.length + 1), form: 'dotted' };
  }
  return undefined;
}
