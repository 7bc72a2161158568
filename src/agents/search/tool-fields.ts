import type { Tool } from '@modelcontextprotocol/client';

/**
 * What of a tool definition is searched, field by field. Parameter names are collected at
 * every depth (a memory server's `entities[].observations` is as telling as a top-level
 * `path`), following local `$ref`s into `$defs` once, so a block of definitions repeated in
 * every tool of a server counts only where a tool uses it.
 */

/** The part of a tool definition the index reads; a catalog tool's `tool` fits. */
export type SearchableTool = Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>;

/** The text of each searched field of one tool. */
export interface ToolFields {
  readonly name: string;
  readonly title: string;
  /** Parameter names, nested ones included, space-separated. */
  readonly params: string;
  readonly description: string;
  /** Parameter descriptions, titles and enum values. */
  readonly paramText: string;
}

// A schema is arbitrary JSON from a server: walk it with limits, not trust.
const MAX_DEPTH = 6;
const MAX_NAMES = 200;

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The searchable fields of `tool`. */
export function toolFields(tool: SearchableTool): ToolFields {
  const names: string[] = [];
  const text: string[] = [];
  const schema: unknown = tool.inputSchema;
  const defs = isObject(schema) ? (schema.$defs ?? schema.definitions) : undefined;
  const seenRefs = new Set<string>();

  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH || names.length >= MAX_NAMES) return;
    if (typeof node.$ref === 'string') {
      const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(node.$ref);
      if (match && isObject(defs) && !seenRefs.has(match[1]!)) {
        seenRefs.add(match[1]!);
        visit(defs[match[1]!], depth + 1);
      }
    }
    if (isObject(node.properties)) {
      for (const [key, sub] of Object.entries(node.properties)) {
        if (names.length >= MAX_NAMES) break;
        names.push(key);
        if (isObject(sub)) describe(sub, text);
        visit(sub, depth + 1);
      }
    }
    if (isObject(node.items)) visit(node.items, depth + 1);
    if (isObject(node.additionalProperties)) visit(node.additionalProperties, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const sub of list) visit(sub, depth + 1);
    }
  };
  visit(schema, 0);

  return {
    name: tool.name,
    // The annotation's title is the older place for a display name (2025-03-26); servers
    // often set one and not the other, and some set both alike.
    title: [
      ...new Set([tool.title, tool.annotations?.title].filter((t): t is string => typeof t === 'string')),
    ].join(' '),
    params: names.join(' '),
    description: tool.description ?? '',
    paramText: text.join(' '),
  };
}

function describe(property: Json, into: string[]): void {
  if (typeof property.description === 'string') into.push(property.description);
  if (typeof property.title === 'string') into.push(property.title);
  if (Array.isArray(property.enum))
    for (const value of property.enum) if (typeof value === 'string') into.push(value);
}
