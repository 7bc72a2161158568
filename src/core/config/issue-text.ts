import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { closestName } from './did-you-mean.js';

/**
 * Turns a zod issue into the field it is about and a sentence that says what is wrong and
 * how to fix it. Unknown fields get a "did you mean" when a known field is a likely typo.
 */

/** The field an issue is about (dotted path) and what to tell the person who wrote it. */
export interface IssueText {
  readonly field: string;
  readonly problem: string;
}

/** How a field should be written, for type errors ("a list of strings, e.g. …"). */
export type FieldHints = Readonly<Record<string, string>>;

/** Characters of a value a message quotes before it is cut. */
const SHOWN_CHARS = 80;

/**
 * A value as a message quotes it: JSON-quoted, cut past 80 characters with its length noted,
 * so that an error about a huge or binary string stays one readable line.
 */
export function shownText(value: string): string {
  if (value.length <= SHOWN_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN_CHARS))}… (${value.length} characters)`;
}

/**
 * A dotted field path as messages show it: a segment (a key under `env`, `headers`, …) past
 * 40 characters is cut, so the path of a huge key stays short.
 */
export function shownField(path: readonly string[]): string {
  return path.map((p) => (p.length <= 40 ? p : `${p.slice(0, 40)}…`)).join('.');
}

/** Explains the first issue of a failed parse of `schema`. */
export function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType, hints: FieldHints = {}): IssueText {
  const path = issue.path.map(String);
  const field = shownField(path) || '(entry)';
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const known = knownKeysAt(schema, issue.path);
    const shown = shownText(key);
    const unknownField = shownField([...path, key]);
    const guess = closestName(key, known);
    const problem = guess
      ? `unknown field ${shown}. Did you mean "${guess}"? Rename it.`
      : `unknown field ${shown}. Remove it; the known fields here are ${known.map((k) => `"${k}"`).join(', ')}.`;
    return { field: unknownField, problem };
  }
  const hint = hints[path.filter((p) => !/^\d+$/.test(p)).join('.')];
  if (issue.code === 'invalid_union' && 'discriminator' in issue && 'options' in issue) {
    const options = (issue.options as unknown[]).map((o) => `"${String(o)}"`).join(' or ');
    return { field, problem: `must be ${options}. Set it to one of those.` };
  }
  if (issue.code === 'invalid_value') {
    const values = issue.values.map((v) => JSON.stringify(v)).join(', ');
    return { field, problem: `must be one of ${values}. Use one of those values.` };
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return { field, problem: hint ? `${message}. Write ${hint}.` : `${message}. Fix the value and try again.` };
}

/** The field names of the object schema found at `path` inside `schema` (empty if none). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject) current = unwrap(current.shape[String(segment)]);
    else if (current instanceof z.ZodArray) current = unwrap(current.element as z.ZodType);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueType as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/**
 * Validates one top-level section of `file` (`telemetry`, `search`…) with its schema; a
 * rejection is CONFIG_INVALID naming the file and the dotted field, and saying the fix.
 */
export function parseSection<T>(schema: z.ZodType<T>, section: string, raw: unknown, file: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const described =
    issue.code === 'custom'
      ? { field: shownField(issue.path.map(String)), problem: issue.message }
      : describeIssue(issue, schema, {});
  const field = [section, described.field].filter((p) => p !== '' && p !== '(entry)').join('.');
  throw new SwitchboardError('CONFIG_INVALID', `${file}: field "${field}": ${described.problem}`, {
    details: { file, field },
  });
}
