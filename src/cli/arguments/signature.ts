import {
  asNode,
  propertiesOf,
  refName,
  requiredOf,
  resolveRef,
  type SchemaNode,
  typesOf,
  unionMembers,
} from './json-schema.js';

/**
 * A tool's JSON Schemas rendered as a signature a person reads at a glance, TypeScript-like:
 *
 *     echo(text: string, times?: integer = 1) → text
 *     search(query: string, filter?: { status: "open" | "closed", tags?: string[] }) → { hits: integer }
 *
 * Optional parameters carry `?`, defaults follow `=`, enums become unions of literals, arrays
 * `T[]`, objects `{ … }` (deeper than three levels: `{…}`), `$ref`s are followed (a recursive
 * one shows its definition's name). A tool without an `outputSchema` returns `text` (content
 * blocks). Pure.
 */

/** One parameter of a tool, for a table of parameters. */
export interface ParameterInfo {
  readonly name: string;
  /** The type as in the signature. */
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly description?: string;
}

/** A tool as far as its signature goes (MCP `Tool`). */
export interface ToolShape {
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
}

const MAX_DEPTH = 3;
const MAX_LITERALS = 8;

interface Walk {
  readonly root: SchemaNode;
  /** `$ref`s being expanded on the current path: one met again is shown by name. */
  readonly expanding: ReadonlySet<string>;
  readonly depth: number;
}

/** `name(params) → result`. */
export function renderSignature(tool: ToolShape): string {
  const params = parameterList(asNode(tool.inputSchema))
    .map(
      (p) =>
        `${p.name}${p.required ? '' : '?'}: ${p.type}${p.default === undefined ? '' : ` = ${literal(p.default)}`}`,
    )
    .join(', ');
  const output =
    tool.outputSchema === undefined
      ? 'text'
      : renderType(asNode(tool.outputSchema), asNode(tool.outputSchema));
  return `${tool.name}(${params}) → ${output}`;
}

/** The top-level parameters of an input schema, required ones first in their declared order. */
export function parameterList(inputSchema: SchemaNode): ParameterInfo[] {
  const node = resolveRef(inputSchema, inputSchema);
  const required = new Set(requiredOf(node));
  const all = propertiesOf(node).map(([name, schema]): ParameterInfo => {
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    return {
      name,
      type: renderType(schema, inputSchema, 1),
      required: required.has(name),
      ...(schema.default !== undefined && { default: schema.default }),
      ...(description !== undefined && { description }),
    };
  });
  return [...all.filter((p) => p.required), ...all.filter((p) => !p.required)];
}

/** A schema node as a type expression; `root` is the document its `$ref`s point into. */
export function renderType(node: SchemaNode, root: SchemaNode, depth = 0): string {
  return typeOf(node, { root, expanding: new Set(), depth });
}

function typeOf(raw: SchemaNode, walk: Walk): string {
  if (typeof raw.$ref === 'string') {
    if (walk.expanding.has(raw.$ref)) return refName(raw.$ref);
    const expanding = new Set(walk.expanding).add(raw.$ref);
    return typeOf(resolveRef(raw, walk.root), { ...walk, expanding });
  }
  const node = raw;
  if ('const' in node) return literal(node.const);
  if (Array.isArray(node.enum)) return literals(node.enum);
  const members = unionMembers(node, walk.root);
  if (members.length > 0) return union(members.map((m) => typeOf(m, walk)));
  if (Array.isArray(node.allOf) && node.allOf.length > 0)
    return node.allOf.map((m) => typeOf(asNode(m), walk)).join(' & ');
  const types = typesOf(node, walk.root);
  if (types.length === 0) return 'any';
  return union(
    types.map((t) => (t === 'array' ? arrayOf(node, walk) : t === 'object' ? objectOf(node, walk) : t)),
  );
}

function arrayOf(node: SchemaNode, walk: Walk): string {
  if (Array.isArray(node.prefixItems)) {
    const items = node.prefixItems.map((i) => typeOf(asNode(i), { ...walk, depth: walk.depth + 1 }));
    return `[${items.join(', ')}]`;
  }
  if (node.items === undefined) return 'any[]';
  const item = typeOf(asNode(node.items), { ...walk, depth: walk.depth + 1 });
  return item.includes(' | ') || item.includes(' & ') ? `(${item})[]` : `${item}[]`;
}

function objectOf(node: SchemaNode, walk: Walk): string {
  const properties = propertiesOf(node);
  const extra = node.additionalProperties;
  if (properties.length === 0) {
    if (extra !== undefined && typeof extra === 'object' && extra !== null)
      return `{ [key: string]: ${typeOf(asNode(extra), { ...walk, depth: walk.depth + 1 })} }`;
    return 'object';
  }
  if (walk.depth >= MAX_DEPTH) return '{…}';
  const required = new Set(requiredOf(node));
  const inner = { ...walk, depth: walk.depth + 1 };
  const fields = properties.map(
    ([name, schema]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(schema, inner)}`,
  );
  return `{ ${fields.join(', ')} }`;
}

function union(parts: readonly string[]): string {
  return [...new Set(parts)].join(' | ');
}

function literals(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LITERALS).map(literal);
  return values.length > MAX_LITERALS ? `${shown.join(' | ')} | …` : shown.join(' | ');
}

/** A value as it would be written in JSON (long strings shortened). */
function literal(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** A prompt (MCP `Prompt`) as far as its signature goes. */
export interface PromptShape {
  readonly name: string;
  readonly arguments?: readonly { readonly name: string; readonly required?: boolean }[];
}

/** `greet(name, style?)`: prompt arguments are strings, optional ones marked `?`. */
export function promptSignature(prompt: PromptShape): string {
  const args = (prompt.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`);
  return `${prompt.name}(${args.join(', ')})`;
}
