import { SwitchboardError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, resolveLocalRef } from './schema-nodes.js';

/**
 * The root of a tool's input schema as LLM APIs take it. OpenAI's function `parameters` and
 * Anthropic's `input_schema` must be an object schema (`type: "object"`), and OpenAI refuses
 * `anyOf`, `oneOf`, `allOf`, `not` and `enum` at the root. The arguments a model writes must
 * keep their shape (the call goes to the server unchanged), so the root is never wrapped:
 *
 * - `allOf` of object schemas is merged into the root: properties of all parts (a property in
 *   several parts becomes the `allOf` of its schemas), `required` of all parts.
 * - `anyOf` / `oneOf` of object schemas becomes one object with the properties of every branch
 *   (a property in several branches with different schemas becomes their `anyOf`) and the
 *   `required` common to all branches. Branches that are not objects (`{type:"null"}`) add
 *   nothing: arguments are always an object.
 * - `not`, `enum` and `const` at the root are dropped.
 *
 * The last two loosen the schema: the model sees a superset of the valid arguments. That is
 * safe because the server still validates the exact schema and refuses a bad call with an
 * error the model reads. Nested `anyOf`/`oneOf`/`allOf` are left as they are. A missing schema
 * becomes `{type:"object",properties:{}}`; a root whose `type` excludes objects is refused.
 */

/**
 * An input schema as providers take it: an object schema with `properties` (OpenAI refuses
 * an object schema without them, even an empty one). Structurally a `FunctionParameters`
 * (OpenAI) and a `Tool.InputSchema` (Anthropic).
 */
export interface ProviderSchema {
  type: 'object';
  properties: JsonObject;
  required?: string[];
  [keyword: string]: unknown;
}

/** How deep `allOf`/`anyOf` nest at the root before the rest is left out of the merge. */
const MAX_MERGE_DEPTH = 8;

/** A merged view of an object schema: what a root can say about its properties. */
interface ObjectShape {
  readonly properties: Map<string, unknown[]>;
  readonly required: Set<string>;
  /** True when the shape forbids properties it does not list. */
  readonly closed: boolean;
}

/**
 * Returns `schema` adapted to what LLM APIs take at the root of a tool's input schema (see
 * the module comment for each rule). The input is not modified. Throws `CONFIG_INVALID` when
 * the root says its value is not an object: no model can call such a tool with arguments.
 */
export function toProviderSchema(schema: unknown, toolName: string): ProviderSchema {
  if (!isJsonObject(schema)) return { type: 'object', properties: {} };
  const type = schema.type;
  const allowsObject =
    type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (!allowsObject) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Tool "${toolName}" has an input schema of type ${JSON.stringify(type)}; tool arguments are ` +
        'always a JSON object. Give the tool an object schema (its value as a property).',
    );
  }
  const { allOf, anyOf, oneOf, not: _not, enum: _enum, const: _const, ...rest } = schema;
  const { properties, required, ...others } = rest;
  const out: ProviderSchema = {
    ...others,
    type: 'object',
    properties: isJsonObject(properties) ? properties : {},
  };
  // A `required` that is not a list of names is not JSON Schema; only the names in it are kept.
  if (Array.isArray(required)) {
    const names = required.filter(isString);
    if (names.length > 0) out.required = names;
  }
  if (Array.isArray(allOf) || Array.isArray(anyOf) || Array.isArray(oneOf)) {
    const shape = shapeOf(schema, schema, 0);
    out.properties = {};
    for (const [name, schemas] of shape.properties) out.properties[name] = combine(schemas, 'anyOf');
    if (shape.required.size > 0) out.required = [...shape.required];
    else delete out.required;
    if (shape.closed) out.additionalProperties = false;
    else if (out.additionalProperties === false) delete out.additionalProperties;
  }
  return out;
}

/** The merged shape of `node` and its root-level `allOf` / `anyOf` / `oneOf`. */
function shapeOf(node: JsonObject, root: JsonObject, depth: number): ObjectShape {
  const own = ownShape(node);
  if (depth >= MAX_MERGE_DEPTH) return own;
  const parts: ObjectShape[] = [own];
  if (Array.isArray(node.allOf)) {
    parts.push(...branches(node.allOf, root, depth).map((b) => b ?? openShape()));
  }
  let shape = intersect(parts);
  for (const list of [node.anyOf, node.oneOf]) {
    if (!Array.isArray(list)) continue;
    const objects = branches(list, root, depth).filter((b): b is ObjectShape => b !== undefined);
    if (objects.length > 0) shape = intersect([shape, union(objects)]);
  }
  return shape;
}

/** The shapes of a list of branches (local `$ref`s followed); undefined for non-object branches. */
function branches(list: unknown[], root: JsonObject, depth: number): (ObjectShape | undefined)[] {
  return list.map((raw) => {
    const branch = isJsonObject(raw) && typeof raw.$ref === 'string' ? resolveLocalRef(root, raw.$ref) : raw;
    if (branch === true) return openShape();
    if (!isJsonObject(branch)) return undefined;
    const type = branch.type;
    if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) {
      return undefined;
    }
    return shapeOf(branch, root, depth + 1);
  });
}

function ownShape(node: JsonObject): ObjectShape {
  const properties = new Map<string, unknown[]>();
  if (isJsonObject(node.properties)) {
    for (const [name, sub] of Object.entries(node.properties)) properties.set(name, [sub]);
  }
  const required = new Set(Array.isArray(node.required) ? node.required.filter(isString) : []);
  return { properties, required, closed: node.additionalProperties === false };
}

function openShape(): ObjectShape {
  return { properties: new Map(), required: new Set(), closed: false };
}

/** All parts hold at once: every property, every requirement, closed when any part is. */
function intersect(parts: ObjectShape[]): ObjectShape {
  const properties = new Map<string, unknown[]>();
  const required = new Set<string>();
  for (const part of parts) {
    for (const [name, schemas] of part.properties) {
      properties.set(name, [...(properties.get(name) ?? []), ...schemas]);
    }
    for (const name of part.required) required.add(name);
  }
  for (const [name, schemas] of properties) properties.set(name, [combine(schemas, 'allOf')]);
  // A closed part forbids what it does not list. The merged list holds every part's list, so
  // "closed over the merged list" accepts whatever the closed part accepted: still a superset.
  return { properties, required, closed: parts.some((p) => p.closed) };
}

/** One of the branches holds: every property of any branch, the requirements they share. */
function union(branchShapes: ObjectShape[]): ObjectShape {
  const properties = new Map<string, unknown[]>();
  for (const shape of branchShapes) {
    for (const [name, schemas] of shape.properties) {
      properties.set(name, [...(properties.get(name) ?? []), ...schemas]);
    }
  }
  for (const [name, schemas] of properties) properties.set(name, [combine(schemas, 'anyOf')]);
  const [first, ...others] = branchShapes;
  const required = new Set(
    [...(first?.required ?? [])].filter((n) => others.every((o) => o.required.has(n))),
  );
  return { properties, required, closed: branchShapes.every((b) => b.closed) };
}

/** One schema for a property described several times: the distinct ones under `keyword`. */
function combine(schemas: unknown[], keyword: 'allOf' | 'anyOf'): unknown {
  const distinct = new Map<string, unknown>();
  for (const schema of schemas) distinct.set(JSON.stringify(schema), schema);
  const list = [...distinct.values()];
  if (list.length === 1) return list[0];
  return { [keyword]: list };
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
