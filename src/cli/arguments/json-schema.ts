/**
 * Reading the JSON Schemas servers send for tool inputs (MCP "Tools": `inputSchema` is a JSON
 * Schema object, draft 2020-12 by default) as far as the CLI needs: local `$ref`s, the types a
 * node allows, an object's properties. Pure; anything unexpected reads as "no constraint".
 */

/** A schema node: an object with any keywords. */
export type SchemaNode = Readonly<Record<string, unknown>>;

/** The JSON types a schema can name. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

const TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'null',
  'object',
  'array',
]);
const MAX_REF_HOPS = 16;

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as a schema node; `true`, a missing schema or anything else is the empty (any) schema. */
export function asNode(value: unknown): SchemaNode {
  return isNode(value) ? value : {};
}

/**
 * Follows a local `$ref` (`#/$defs/Name`, `#/definitions/Name`, any JSON pointer into `root`)
 * until a node without one, at most 16 hops. A ref that leads nowhere (or outside the document)
 * resolves to the node itself without its `$ref`, i.e. no constraint from it.
 */
export function resolveRef(node: SchemaNode, root: SchemaNode): SchemaNode {
  let current = node;
  for (let hop = 0; hop < MAX_REF_HOPS && typeof current.$ref === 'string'; hop++) {
    const target = pointer(root, current.$ref);
    if (!target) {
      const { $ref: _ref, ...rest } = current;
      return rest;
    }
    current = target;
  }
  return current;
}

/** The last segment of a local `$ref`: the definition's name. */
export function refName(ref: string): string {
  const segments = ref.split('/');
  return decodeSegment(segments[segments.length - 1] ?? ref);
}

function decodeSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}

function pointer(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const segment of ref.slice(2).split('/')) {
    if (!isNode(current) && !Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[decodeSegment(segment)];
  }
  return isNode(current) ? current : undefined;
}

/** The members of `anyOf` / `oneOf`, resolved; empty when the node has neither. */
export function unionMembers(node: SchemaNode, root: SchemaNode): SchemaNode[] {
  const members = [node.anyOf, node.oneOf].find(Array.isArray) as unknown[] | undefined;
  return (members ?? []).map((m) => resolveRef(asNode(m), root));
}

/**
 * The JSON types `node` allows: its `type` keyword, else what its `const`, `enum`,
 * `properties`, `items` or union members imply. Empty means any type.
 */
export function typesOf(node: SchemaNode, root: SchemaNode, depth = 0): JsonType[] {
  const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  const types = declared.filter((t): t is JsonType => typeof t === 'string' && TYPES.has(t));
  if (types.length > 0) return types;
  if ('const' in node) return [jsonTypeOf(node.const)];
  if (Array.isArray(node.enum)) return unique(node.enum.map(jsonTypeOf));
  if (isNode(node.properties)) return ['object'];
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return ['array'];
  if (depth < MAX_REF_HOPS) {
    const members = unionMembers(node, root);
    const implied = members.map((m) => typesOf(m, root, depth + 1));
    // One member with no constraint makes the union unconstrained.
    if (implied.length > 0 && implied.every((t) => t.length > 0)) return unique(implied.flat());
  }
  return [];
}

/** The JSON type of a value (integers are `integer`). */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/** An object node's properties, in the order the server wrote them. */
export function propertiesOf(node: SchemaNode): [name: string, schema: SchemaNode][] {
  return isNode(node.properties) ? Object.entries(node.properties).map(([k, v]) => [k, asNode(v)]) : [];
}

/** An object node's required property names. */
export function requiredOf(node: SchemaNode): string[] {
  return Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : [];
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
