import { createHash } from 'node:crypto';

/**
 * A stable fingerprint of a tool definition, for pinning: what the model is told (name,
 * description, schemas, annotations) in a canonical JSON form (keys sorted), so the same
 * definition always hashes the same, whatever order the server wrote its keys in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface HashableTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

export function toolDefinitionHash(tool: HashableTool): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return createHash('sha256')
    .update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations }))
    .digest('hex');
}
