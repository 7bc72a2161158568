/**
 * Where the subschemas of a JSON Schema sit, across the dialects MCP servers send (draft-07,
 * 2019-09, 2020-12). Compaction and provider adaptation rewrite only schema positions: values
 * under `enum`, `const`, `default` or `examples` are data and are never touched.
 */

/** A JSON object (a schema node, or any other object value). */
export type JsonObject = Record<string, unknown>;

/** True for plain JSON objects (not arrays, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords whose value is one subschema (draft-07 `items` may also be a list; see below). */
const SINGLE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'contentSchema',
] as const;
/** Keywords whose value is a list of subschemas (`items` in its draft-07 tuple form too). */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
/**
 * Keywords whose value maps names to subschemas. Draft-07 `dependencies` mixes schemas and
 * property-name lists; only the schema values are subschemas.
 */
const MAPS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
] as const;

/** Where a subschema sits in its parent: the keyword, and the name or index below it. */
export interface SubschemaSlot {
  readonly keyword: string;
  readonly key?: string | number;
}

/**
 * Returns a copy of `node` with every direct subschema replaced by `map(sub, slot)`. Boolean
 * subschemas are passed too (`true`/`false` are schemas); non-schema values are copied as
 * they are. Keys whose value is `undefined` are dropped (JSON has no `undefined`).
 */
export function mapSubschemas(
  node: JsonObject,
  map: (sub: unknown, slot: SubschemaSlot) => unknown,
): JsonObject {
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (value === undefined) continue;
    out[keyword] = mapKeyword(keyword, value, map);
  }
  return out;
}

function mapKeyword(
  keyword: string,
  value: unknown,
  map: (sub: unknown, slot: SubschemaSlot) => unknown,
): unknown {
  if ((LISTS as readonly string[]).includes(keyword) && Array.isArray(value)) {
    return value.map((sub, index) => map(sub, { keyword, key: index }));
  }
  if ((SINGLE as readonly string[]).includes(keyword) && isSchema(value)) {
    return map(value, { keyword });
  }
  if ((MAPS as readonly string[]).includes(keyword) && isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [key, sub] of Object.entries(value)) {
      if (sub === undefined) continue;
      out[key] = isSchema(sub) ? map(sub, { keyword, key }) : sub;
    }
    return out;
  }
  return value;
}

/** Calls `visit` on every schema node below and including `root`, depth first. */
export function everySchemaNode(root: unknown, visit: (node: JsonObject) => void): void {
  const walk = (node: unknown): void => {
    if (!isJsonObject(node)) return;
    visit(node);
    mapSubschemas(node, (sub) => {
      walk(sub);
      return sub;
    });
  };
  walk(root);
}

function isSchema(value: unknown): boolean {
  return typeof value === 'boolean' || isJsonObject(value);
}

/**
 * Splits a local JSON pointer reference (`#/a/b~1c`) into its decoded segments (RFC 6901 §3
 * and §6: percent-decoding of the URI fragment first, then `~1` → `/`, `~0` → `~`). Returns
 * undefined for anything that is not a local pointer (anchors, other documents, bad escapes).
 */
export function localPointerSegments(ref: string): string[] | undefined {
  if (ref === '#') return [];
  if (!ref.startsWith('#/')) return undefined;
  try {
    return ref
      .slice(2)
      .split('/')
      .map((raw) => decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
}

/** Resolves a local `$ref` inside `root`; undefined when it points nowhere. */
export function resolveLocalRef(root: JsonObject, ref: string): unknown {
  const segments = localPointerSegments(ref);
  if (segments === undefined) return undefined;
  let node: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isJsonObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
