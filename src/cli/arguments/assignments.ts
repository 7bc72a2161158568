import { UsageError } from '../cli-context.js';
import {
  asNode,
  type JsonType,
  jsonTypeOf,
  propertiesOf,
  requiredOf,
  resolveRef,
  type SchemaNode,
  typesOf,
  unionMembers,
} from './json-schema.js';

/**
 * `key=value` words from the command line turned into a tool's arguments, typed by its input
 * schema, so `switchboard call gh.search query=bug limit=5 open=true` sends
 * `{ "query": "bug", "limit": 5, "open": true }`:
 *
 * - a `string` parameter takes the text as it is (`zip=01234` stays a string);
 * - `integer` / `number` / `boolean` parse (`true|false|yes|no|1|0`); `null` where allowed;
 * - `object` / `array` take JSON (`filter='{"state":"open"}'`); an array also takes repeated
 *   keys, one item each (`tag=a tag=b`);
 * - an `enum` must be one of its values;
 * - `a.b=x` sets a nested property; `key:=<json>` sends the JSON as it is, whatever the schema;
 * - a parameter the schema does not declare is refused with the ones it does (unless the schema
 *   allows additional properties: then the value's type is guessed from its text).
 *
 * Every mistake is a UsageError naming the parameter, what was expected and what to write.
 */

/** Parses `key=value` / `key:=json` words into an arguments object for `inputSchema`. */
export function parseAssignments(words: readonly string[], inputSchema: unknown): Record<string, unknown> {
  const root = asNode(inputSchema);
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const { key, raw, json } = splitWord(word);
    // `a.b=x` sets property b of a, unless the schema has a parameter named "a.b" itself.
    const dotted = propertiesOf(resolveRef(root, root)).some(([name]) => name === key);
    const path = dotted ? [key] : key.split('.');
    let target = args;
    let node = resolveRef(root, root);
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      const where = path.slice(0, i + 1).join('.');
      const child = propertySchema(node, root, key, where);
      if (i < path.length - 1) {
        const existing = target[key];
        if (
          existing !== undefined &&
          (typeof existing !== 'object' || existing === null || Array.isArray(existing))
        )
          throw new UsageError(`"${where}" is set to a value and also used as an object; set it once.`);
        if (existing === undefined) target[key] = {};
        target = target[key] as Record<string, unknown>;
        node = child ?? {};
        continue;
      }
      if (json) target[key] = parseJson(raw, where);
      else if (child === undefined) target[key] = guess(raw);
      else target[key] = assign(target[key], raw, child, root, where);
    }
  }
  return args;
}

/** The required parameters `args` lacks (top level). */
export function missingRequired(args: Record<string, unknown>, inputSchema: unknown): string[] {
  const root = asNode(inputSchema);
  return requiredOf(resolveRef(root, root)).filter((name) => args[name] === undefined);
}

function splitWord(word: string): { key: string; raw: string; json: boolean } {
  const eq = word.indexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `"${word}" is not an argument: write key=value (key:=<json> for raw JSON), or pass --args '<json>'.`,
    );
  const json = word[eq - 1] === ':';
  const key = word.slice(0, json ? eq - 1 : eq);
  if (key === '' || key.split('.').some((s) => s === ''))
    throw new UsageError(`"${word}" has an empty name before "=".`);
  return { key, raw: word.slice(eq + 1), json };
}

/**
 * The schema of property `key` of `node`; undefined when any value is accepted (no schema, or
 * additional properties allowed). A key the schema does not allow is a UsageError.
 */
function propertySchema(
  node: SchemaNode,
  root: SchemaNode,
  key: string,
  where: string,
): SchemaNode | undefined {
  const properties = propertiesOf(node);
  const found = properties.find(([name]) => name === key);
  if (found) return resolveRef(found[1], root);
  const extra = node.additionalProperties;
  if (typeof extra === 'object' && extra !== null) return resolveRef(asNode(extra), root);
  if (properties.length === 0 || extra === true) return undefined;
  const names = properties.map(([name]) => name);
  const close = names.find((name) => similar(name, key));
  throw new UsageError(
    `Unknown parameter "${where}"${close ? `; did you mean "${close}"?` : '.'} ` +
      `It takes: ${names.join(', ')}.`,
  );
}

/** The value for a parameter; an array parameter given a non-JSON value collects one item per word. */
function assign(previous: unknown, raw: string, node: SchemaNode, root: SchemaNode, where: string): unknown {
  const types = typesOf(node, root);
  if (types.includes('array') && !looksLikeJson(raw, '[')) {
    const items = resolveRef(asNode(node.items), root);
    const item = coerce(raw, items, root, `${where}[]`);
    return Array.isArray(previous) ? [...previous, item] : [item];
  }
  if (previous !== undefined) throw new UsageError(`"${where}" is given twice; give it once.`);
  return coerce(raw, node, root, where);
}

/** Converts text to a value `node` accepts, or throws a UsageError that says what it expects. */
export function coerce(raw: string, node: SchemaNode, root: SchemaNode, where: string): unknown {
  if ('const' in node) return oneOf([node.const], raw, where);
  if (Array.isArray(node.enum)) return oneOf(node.enum, raw, where);
  const members = unionMembers(node, root);
  if (members.length > 0 && node.type === undefined) {
    for (const member of members) {
      try {
        return coerce(raw, member, root, where);
      } catch {
        // Try the next member.
      }
    }
  }
  const types = typesOf(node, root);
  if (types.length === 0) return guess(raw);
  // Strings last: "null" or "5" are only text when nothing else fits.
  for (const type of [...types].sort((a, b) => Number(a === 'string') - Number(b === 'string'))) {
    const value = parseAs(type, raw);
    if (value !== NO) return value;
  }
  throw new UsageError(
    `"${where}" must be ${types.map(article).join(' or ')}, not "${raw}"` +
      (types.includes('object') || types.includes('array') ? ' (write it as JSON).' : '.'),
  );
}

const NO = Symbol('no');

function parseAs(type: JsonType, raw: string): unknown {
  const text = raw.trim();
  switch (type) {
    case 'string':
      return raw;
    case 'integer':
      return /^[-+]?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : NO;
    case 'number':
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : NO;
    case 'boolean': {
      const word = text.toLowerCase();
      if (['true', 'yes', '1'].includes(word)) return true;
      if (['false', 'no', '0'].includes(word)) return false;
      return NO;
    }
    case 'null':
      return text === 'null' ? null : NO;
    case 'object':
    case 'array': {
      if (!looksLikeJson(text, type === 'array' ? '[' : '{')) return NO;
      try {
        const value: unknown = JSON.parse(text);
        return jsonTypeOf(value) === type ? value : NO;
      } catch {
        return NO;
      }
    }
  }
}

function oneOf(values: readonly unknown[], raw: string, where: string): unknown {
  const match = values.find((v) => (typeof v === 'string' ? v === raw : JSON.stringify(v) === raw.trim()));
  if (match !== undefined || (values.includes(null) && raw.trim() === 'null')) return match ?? null;
  throw new UsageError(
    `"${where}" must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}, not "${raw}".`,
  );
}

/** A value for a parameter without a schema: JSON when it reads as a number, boolean, null, object or array. */
function guess(raw: string): unknown {
  const text = raw.trim();
  if (
    /^(true|false|null)$/.test(text) ||
    /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text) ||
    looksLikeJson(text, '{') ||
    looksLikeJson(text, '[')
  ) {
    try {
      return JSON.parse(text);
    } catch {
      return raw;
    }
  }
  return raw;
}

function parseJson(raw: string, where: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`"${where}:=" needs JSON: ${(error as Error).message}.`);
  }
}

function looksLikeJson(text: string, open: '{' | '['): boolean {
  return text.trimStart().startsWith(open);
}

function article(type: JsonType): string {
  return type === 'integer' || type === 'object' || type === 'array'
    ? `an ${type}`
    : type === 'null'
      ? 'null'
      : `a ${type}`;
}

/** Close enough to be a typo: one edit apart, or one name a prefix of the other. */
function similar(a: string, b: string): boolean {
  if (a.startsWith(b) || b.startsWith(a)) return true;
  return (
    editDistance(a.toLowerCase(), b.toLowerCase()) <=
    Math.max(1, Math.floor(Math.min(a.length, b.length) / 4))
  );
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}
