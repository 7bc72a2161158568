import { createHash } from 'node:crypto';
import type { ToolDefinitionLike } from '../../policy/scan/scan-tool.js';

/**
 * A stable fingerprint of a tool definition, for pinning: what the model is told (name,
 * description, schemas, annotations) in a canonical JSON form (keys sorted), so the same
 * definition always hashes the same, whatever order the server wrote its keys in.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join('');
}

// One pass into a string list: a catalog of 10,000 tools hashes every definition once.
function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      writeCanonical(value[i] === undefined ? null : value[i], out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out.push('{');
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    writeCanonical(item, out);
  }
  out.push('}');
}

/** What is hashed: everything a model is shown, the same fields the injection scanner reads. */
export type HashableTool = ToolDefinitionLike;

export function toolDefinitionHash(tool: HashableTool): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return createHash('sha256')
    .update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations }))
    .digest('hex');
}
