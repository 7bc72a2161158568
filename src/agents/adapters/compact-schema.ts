import {
  everySchemaNode,
  isJsonObject,
  type JsonObject,
  localPointerSegments,
  mapSubschemas,
  type SubschemaSlot,
} from './schema-nodes.js';

/**
 * Smaller tool schemas with the same meaning. Every token of a tool definition is paid on
 * every model round, so what neither a validator nor a model uses is dropped: the dialect
 * declaration where the schema reads the same in every dialect, definitions no `$ref` reaches,
 * `$comment` (JSON Schema 2020-12 core §8.3: for authors, never for validation), titles that
 * only repeat their property's key, `required: []`, `additionalProperties: true`, runs of
 * blanks in descriptions, and `anyOf` lists of bare types (written as one `type` list).
 * Descriptions, enums, `required`, formats, defaults, examples and constraints are kept.
 */

export interface CompactSchemaOptions {
  /**
   * The tool's name. A root `title` that only repeats it (FastMCP writes `read_fileArguments`
   * for a tool named `read_file`) is dropped.
   */
  readonly toolName?: string;
}

/** The dialects whose shared keywords mean the same; `$schema` naming one of them can go. */
const PLAIN_DIALECTS = new Set(
  [
    'json-schema.org/draft-06/schema',
    'json-schema.org/draft-07/schema',
    'json-schema.org/draft/2019-09/schema',
    'json-schema.org/draft/2020-12/schema',
  ].flatMap((uri) => [`http://${uri}`, `http://${uri}#`, `https://${uri}`, `https://${uri}#`]),
);

/** Keywords that exist in some of those dialects only, or mean different things across them. */
const DIALECT_KEYWORDS = new Set([
  'prefixItems',
  'additionalItems',
  'dependencies',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedItems',
  'unevaluatedProperties',
  'minContains',
  'maxContains',
  '$recursiveRef',
  '$recursiveAnchor',
  '$dynamicRef',
  '$dynamicAnchor',
]);

/** Keywords that only annotate: beside a `$ref` they mean the same in every dialect. */
const ANNOTATIONS = new Set([
  '$ref',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

const TITLE_SUFFIXES = /(arguments|args|input|params|parameters)$/;

/** Collapses runs of blanks inside lines, trailing blanks and blank-line runs; keeps indentation. */
export function compactDescription(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => {
      const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
      return (
        indent +
        line
          .slice(indent.length)
          .replace(/[ \t]+/g, ' ')
          .trimEnd()
      );
    })
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Returns a compacted copy of `schema` that validates exactly the same values and tells a
 * model the same things. The input is not modified. Schemas that cannot be analysed safely
 * (references to other documents or anchors, dynamic references) keep all their definitions.
 */
export function compactSchema(schema: Readonly<JsonObject>, options: CompactSchemaOptions = {}): JsonObject {
  const root = schema as JsonObject;
  const facts = analyse(root);
  const walk = (node: unknown, slot: SubschemaSlot | undefined): unknown => {
    if (!isJsonObject(node)) return node;
    return compactNode(
      mapSubschemas(node, (sub, childSlot) => walk(sub, childSlot)),
      slot,
      facts,
    );
  };
  const out = walk(root, undefined) as JsonObject;

  if (!facts.dialectSensitive && typeof out.$schema === 'string' && PLAIN_DIALECTS.has(out.$schema)) {
    delete out.$schema;
  }
  // A root `$id` is only a base for resolving references; with local pointers only, none uses it.
  if (facts.localRefsOnly && typeof out.$id === 'string') delete out.$id;
  if (facts.reachedDefs !== undefined) {
    for (const container of ['$defs', 'definitions'] as const) {
      const defs = out[container];
      if (!isJsonObject(defs)) continue;
      for (const name of Object.keys(defs)) {
        if (!facts.reachedDefs.has(`${container}/${name}`)) delete defs[name];
      }
      if (Object.keys(defs).length === 0) delete out[container];
    }
  }
  const title = out.title;
  if (
    typeof title === 'string' &&
    options.toolName !== undefined &&
    repeatsToolName(title, options.toolName)
  ) {
    delete out.title;
  }
  return out;
}

interface SchemaFacts {
  /** `unevaluatedProperties` sees what `additionalProperties: true` evaluated; then it stays. */
  readonly hasUnevaluated: boolean;
  readonly dialectSensitive: boolean;
  readonly localRefsOnly: boolean;
  /** Root definitions some `$ref` reaches, as `$defs/<name>`; undefined when unknown. */
  readonly reachedDefs: ReadonlySet<string> | undefined;
}

function compactNode(node: JsonObject, slot: SubschemaSlot | undefined, facts: SchemaFacts): JsonObject {
  delete node.$comment;
  if (typeof node.description === 'string') node.description = compactDescription(node.description);
  if (Array.isArray(node.required) && node.required.length === 0) delete node.required;
  const additional = node.additionalProperties;
  if (!facts.hasUnevaluated && (additional === true || (isJsonObject(additional) && isEmpty(additional)))) {
    delete node.additionalProperties;
  }
  if (
    typeof node.title === 'string' &&
    slot !== undefined &&
    (slot.keyword === 'properties' || slot.keyword === '$defs' || slot.keyword === 'definitions') &&
    typeof slot.key === 'string' &&
    sameWords(node.title, slot.key)
  ) {
    delete node.title;
  }
  const types = bareTypes(node.anyOf);
  if (types !== undefined && node.type === undefined) {
    delete node.anyOf;
    node.type = types.length === 1 ? types[0] : types;
  }
  return node;
}

/** `[{type:'string'},{type:'null'}]` → `['string','null']`; undefined when the list is anything else. */
function bareTypes(list: unknown): string[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const types: string[] = [];
  for (const branch of list) {
    if (!isJsonObject(branch) || Object.keys(branch).length !== 1 || typeof branch.type !== 'string') {
      return undefined;
    }
    if (types.includes(branch.type)) return undefined;
    types.push(branch.type);
  }
  return types;
}

function isEmpty(node: JsonObject): boolean {
  return Object.values(node).every((v) => v === undefined);
}

function words(text: string): string {
  return text.toLowerCase().replace(/[\s_\-.]+/g, '');
}

function sameWords(a: string, b: string): boolean {
  return words(a) === words(b);
}

function repeatsToolName(title: string, toolName: string): boolean {
  const stem = words(title).replace(TITLE_SUFFIXES, '');
  return stem === '' || words(toolName).endsWith(stem);
}

/** Everything compaction must know about the whole schema before it changes any node. */
function analyse(root: JsonObject): SchemaFacts {
  let hasUnevaluated = false;
  let dialectSensitive = false;
  everySchemaNode(root, (node) => {
    if (node.unevaluatedProperties !== undefined) hasUnevaluated = true;
    if (Object.keys(node).some((k) => DIALECT_KEYWORDS.has(k))) dialectSensitive = true;
    if (Array.isArray(node.items)) dialectSensitive = true;
    // Draft-07 ignores the siblings of `$ref`; 2019-09 and later apply them.
    if (node.$ref !== undefined && Object.keys(node).some((k) => !ANNOTATIONS.has(k)))
      dialectSensitive = true;
  });
  const refs = collectRefs(root);
  const localRefsOnly = refs?.every((ref) => localPointerSegments(ref) !== undefined) ?? false;
  return {
    hasUnevaluated,
    dialectSensitive,
    localRefsOnly,
    reachedDefs: localRefsOnly ? reachedDefinitions(root) : undefined,
  };
}

const REF_NODE_LIMIT = 100_000;

/**
 * Every `$ref` string anywhere in `value`, data included (a `$ref` inside an example counts:
 * keeping a definition too many is harmless). Undefined when the schema uses dynamic or
 * recursive references, or is too large to walk; both mean "do not prune".
 */
function collectRefs(value: unknown, skipRootDefs = false): string[] | undefined {
  const refs: string[] = [];
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    if (++seen > REF_NODE_LIMIT) return undefined;
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isJsonObject(node)) continue;
    for (const [key, item] of Object.entries(node)) {
      if (key === '$dynamicRef' || key === '$recursiveRef') return undefined;
      if (key === '$ref' && typeof item === 'string') refs.push(item);
      else if (skipRootDefs && node === value && (key === '$defs' || key === 'definitions')) continue;
      else stack.push(item);
    }
  }
  return refs;
}

/** The root definitions reachable from the schema body through `$ref`s, transitively. */
function reachedDefinitions(root: JsonObject): ReadonlySet<string> | undefined {
  const reached = new Set<string>();
  const pending: unknown[] = [];
  const follow = (node: unknown, skipRootDefs: boolean): boolean => {
    const refs = collectRefs(node, skipRootDefs);
    if (refs === undefined) return false;
    for (const ref of refs) {
      const [container, name] = localPointerSegments(ref) ?? [];
      if (container !== '$defs' && container !== 'definitions') continue;
      if (name === undefined) return false; // a reference to the whole container keeps it all
      const id = `${container}/${name}`;
      if (reached.has(id)) continue;
      reached.add(id);
      const defs = root[container];
      if (isJsonObject(defs) && Object.hasOwn(defs, name)) pending.push(defs[name]);
    }
    return true;
  };
  if (!follow(root, true)) return undefined;
  // Each definition is queued once (the set guards it), so this ends after at most one pass per definition.
  while (pending.length > 0) {
    if (!follow(pending.pop(), false)) return undefined;
  }
  return reached;
}
