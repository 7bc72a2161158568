/**
 * Checks that a tool's `inputSchema` is something an LLM API will accept: an object schema
 * whose arrays say what they hold and whose local `$ref`s resolve. Returns the first problem
 * found, in words, or undefined. Pure; never throws.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a local JSON pointer (`#/…`) inside `root`. */
function resolvePointer(root: Json, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

const SUBSCHEMA_KEYS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
];
const SUBSCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const MAX_NODES = 10_000;

export function checkInputSchema(schema: unknown): string | undefined {
  if (!isObject(schema)) return 'inputSchema is not an object';
  if (schema.type !== 'object')
    return `inputSchema must have type "object" (it has ${JSON.stringify(schema.type ?? null)})`;
  let visited = 0;
  const walk = (node: unknown, path: string): string | undefined => {
    if (++visited > MAX_NODES) return `inputSchema is too large (more than ${MAX_NODES} subschemas)`;
    if (typeof node === 'boolean') return undefined;
    if (!isObject(node)) return `${path} is not a schema`;
    if (typeof node.$ref === 'string') {
      if (node.$ref.startsWith('#') && resolvePointer(schema, node.$ref) === undefined) {
        return `${path}.$ref "${node.$ref}" points nowhere in the schema`;
      }
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('array') && node.items === undefined && node.prefixItems === undefined) {
      return `${path} is an array without "items"`;
    }
    for (const key of SUBSCHEMA_KEYS) {
      if (node[key] !== undefined && typeof node[key] !== 'boolean') {
        const problem = walk(node[key], `${path}.${key}`);
        if (problem) return problem;
      }
    }
    for (const key of SUBSCHEMA_LIST_KEYS) {
      const list = node[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) return `${path}.${key} must be a list of schemas`;
      for (let i = 0; i < list.length; i++) {
        const problem = walk(list[i], `${path}.${key}[${i}]`);
        if (problem) return problem;
      }
    }
    for (const key of SUBSCHEMA_MAP_KEYS) {
      const map = node[key];
      if (map === undefined) continue;
      if (!isObject(map)) return `${path}.${key} must be an object of schemas`;
      for (const [name, sub] of Object.entries(map)) {
        const problem = walk(sub, `${path}.${key}.${name}`);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return walk(schema, 'inputSchema');
}
