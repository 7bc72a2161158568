import { BoundedMemo } from '../../core/bounded-memo.js';
import type { Finding, ScanContext } from './finding.js';
import { analyzeHidden, hiddenFindings, revealHidden } from './hidden-unicode.js';
import { dedupeFindings, scanString } from './scan-text.js';

/**
 * The parts of an MCP tool definition the scanner reads (MCP 2025-11-25 `Tool`): everything a
 * model is shown. Schemas are `unknown` because they come from the server as they are.
 */
export interface ToolDefinitionLike {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/**
 * How far the walk over a schema goes. A hostile schema can be nested thousands of levels deep
 * or hold millions of strings; the walk is iterative (no stack overflow) and stops at these
 * bounds (per tool: `maxStrings` strings scanned, `maxNodes` values visited), so a scan's cost
 * is bounded whatever the server sends.
 * Oversized definitions are for the transport's message-size limit to refuse.
 */
export const SCHEMA_LIMITS = { maxDepth: 64, maxStrings: 5000, maxNodes: 20_000 } as const;

/** JSON Schema keywords; any other key in a schema object is a name the server chose. */
const KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$comment',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  'definitions',
  'type',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'required',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'enum',
  'const',
  'default',
  'examples',
  'title',
  'description',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
  'contentMediaType',
  'contentEncoding',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** Keywords whose values are machine tokens (`"type": "string"`): only checked for hidden characters. */
const TOKEN_VALUED = new Set([
  '$schema',
  '$id',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  'type',
  'format',
  'required',
  'dependentRequired',
  'contentEncoding',
  'contentMediaType',
]);

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return `.${key}`;
  const shown = revealHidden(key)
    .slice(0, 80)
    .replace(/"/g, '\\"')
    .replace(/[\r\n]+/g, ' ');
  return `["${shown}"]`;
}

/** A node of the walk; its path is spelled out only when something is found under it. */
interface Frame {
  readonly value: unknown;
  readonly parent: Frame | undefined;
  readonly key: string | number;
  readonly depth: number;
  /** Under a keyword whose values are machine tokens. */
  readonly tokens: boolean;
}

function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let f: Frame | undefined = frame; f; f = f.parent)
    parts.push(f.parent ? segment(f.key) : String(f.key));
  const path = parts.reverse().join('');
  return path.length > 300 ? `${path.slice(0, 299)}…` : path;
}

/** Findings scanned with an empty `where`, placed at `path` (a `where` may carry a suffix). */
function placed(findings: readonly Finding[], path: () => string): Finding[] {
  if (findings.length === 0) return [];
  const at = path();
  return findings.map((f) => ({ ...f, where: at + f.where }));
}

/** What is left of a tool's walk. */
interface Budget {
  strings: number;
  nodes: number;
}

/** Scans every string of `root` (values, and keys that are not schema keywords) up to the limits. */
function walk(root: unknown, rootPath: string, context: ScanContext, budget: Budget): Finding[] {
  const findings: Finding[] = [];
  const stack: Frame[] = [{ value: root, parent: undefined, key: rootPath, depth: 0, tokens: false }];
  const seen = new Set<object>();
  while (stack.length > 0 && budget.strings > 0 && budget.nodes > 0) {
    const frame = stack.pop()!;
    budget.nodes--;
    const { value, depth } = frame;
    if (typeof value === 'string') {
      budget.strings--;
      const found = frame.tokens ? hiddenOnly(value) : scanString(value, '', context, 'prose');
      findings.push(...placed(found, () => pathOf(frame)));
      continue;
    }
    if (typeof value !== 'object' || value === null || depth >= SCHEMA_LIMITS.maxDepth || seen.has(value))
      continue;
    seen.add(value);
    if (Array.isArray(value)) {
      // Pushed in reverse so that the stack pops them in document order.
      for (let i = Math.min(value.length, budget.nodes) - 1; i >= 0; i--) {
        stack.push({ value: value[i], parent: frame, key: i, depth: depth + 1, tokens: frame.tokens });
      }
      continue;
    }
    const keys = Object.keys(value).slice(0, budget.nodes);
    const frames: Frame[] = keys.map((key) => ({
      value: (value as Record<string, unknown>)[key],
      parent: frame,
      key,
      depth: depth + 1,
      tokens: TOKEN_VALUED.has(key),
    }));
    for (const next of frames) {
      if (KEYWORDS.has(next.key as string) || budget.strings <= 0) continue;
      budget.strings--;
      const found = scanPropertyName(next.key as string, context);
      findings.push(...placed(found, () => pathOf(next)));
    }
    for (let i = frames.length - 1; i >= 0; i--) stack.push(frames[i]!);
  }
  return findings;
}

// Property names repeat across a catalog (`path`, `limit`, `query`…). A clean name's scan does
// not depend on the context (only prose and hidden payloads are read for shadowing, and a name
// with hidden characters is never clean), so clean names are remembered; the rest rescanned.
const cleanNames = new BoundedMemo<true>(50_000);
function scanPropertyName(name: string, context: ScanContext): Finding[] {
  if (cleanNames.get(name)) return [];
  const found = scanString(name, ' (name)', context, 'identifier');
  if (found.length === 0) cleanNames.remember(name, true);
  return found;
}

function hiddenOnly(text: string): Finding[] {
  const analysis = analyzeHidden(text);
  return analysis.positions.length === 0 ? [] : hiddenFindings(text, '', analysis);
}

/**
 * Scans a tool definition: its name (as an identifier, so `ignore_previous_instructions`
 * reads as words), title, description, and every string of its input and output schemas and
 * annotations — titles, descriptions, enum/const/default/examples values and property names,
 * through nested properties, items, `$defs` and `anyOf`/`oneOf`/`allOf`. Each finding's
 * `where` is a readable path such as `inputSchema.properties.path.description`. The walk is
 * bounded by {@link SCHEMA_LIMITS}.
 */
export function scanTool(tool: ToolDefinitionLike, context: ScanContext = {}): Finding[] {
  const own: ScanContext = { ...context, tool: tool.name };
  const findings = typeof tool.name === 'string' ? scanString(tool.name, 'name', own, 'identifier') : [];
  if (typeof tool.title === 'string') findings.push(...scanString(tool.title, 'title', own, 'prose'));
  if (typeof tool.description === 'string') {
    findings.push(...scanString(tool.description, 'description', own, 'prose'));
  }
  const budget: Budget = { strings: SCHEMA_LIMITS.maxStrings, nodes: SCHEMA_LIMITS.maxNodes };
  findings.push(...walk(tool.inputSchema, 'inputSchema', own, budget));
  findings.push(...walk(tool.outputSchema, 'outputSchema', own, budget));
  findings.push(...walk(tool.annotations, 'annotations', own, budget));
  return dedupeFindings(findings);
}
