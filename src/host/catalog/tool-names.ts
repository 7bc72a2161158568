import { createHash } from 'node:crypto';

/**
 * The names tools carry in the catalog: `mcp__<server>__<tool>`, held to what LLM APIs accept
 * (`^[a-zA-Z0-9_-]{1,64}$`). Deterministic and independent of which other servers exist, so a
 * name is stable across restarts: characters outside the set become `_`, and a name too long
 * is cut and given a short hash of the full original, so two long names stay apart.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

function sanitize(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The catalog name of `tool` on `server`. */
export function qualifiedToolName(server: string, tool: string): string {
  const full = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  // Keep the start (server and the tool's beginning are the readable part) and append a hash
  // of the unsanitized original: stable, and distinct for names that share a long prefix.
  const hash = shortHash(`${server}\u0000${tool}`);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
