import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';
import { isSecretField } from '../../policy/masking.js';

/**
 * The fields of a form-mode elicitation (MCP 2025-11-25, "Elicitation: requested schema"): a
 * flat object of primitive fields — string, number/integer, boolean, single-select enum
 * (`enum` or titled `oneOf`), multi-select enum (array of strings). Shared by the Inbox, which
 * checks an answer before it goes to the server, and by front-ends, which ask field by field.
 * Error messages name fields and allowed choices, never the value given: it may be a secret.
 */

/** The `requestedSchema` of a form-mode elicitation. */
export type ElicitationFormSchema = ElicitRequestFormParams['requestedSchema'];

/** What an accepted form answer holds: primitives and string lists, keyed by field. */
export type ElicitationContent = NonNullable<ElicitResult['content']>;

/** How a front-end should ask for a field. `other` is anything the spec does not define. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices' | 'other';

/** One allowed value of an enum field, with the label to show for it. */
export interface FieldChoice {
  readonly value: string;
  readonly title: string;
}

/** A field of the form, as a front-end needs it. */
export interface FormField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly title: string;
  readonly description?: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly choices?: readonly FieldChoice[];
  readonly default?: unknown;
  readonly schema: Readonly<Record<string, unknown>>;
}

type Loose = Record<string, unknown>;

function record(value: unknown): Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : {};
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** The allowed values of a single-select field (`enum`, `enum` + `enumNames`, or `oneOf`). */
function singleChoices(schema: Loose): FieldChoice[] | undefined {
  const values = stringList(schema.enum);
  if (values) {
    const names = stringList(schema.enumNames);
    return values.map((value, i) => ({ value, title: names?.[i] ?? value }));
  }
  const options = Array.isArray(schema.oneOf) ? schema.oneOf.map(record) : undefined;
  if (options?.every((o) => typeof o.const === 'string')) {
    return options.map((o) => ({
      value: o.const as string,
      title: typeof o.title === 'string' ? o.title : (o.const as string),
    }));
  }
  return undefined;
}

/** The allowed values of a multi-select field (`items.enum` or `items.anyOf`). */
function multiChoices(schema: Loose): FieldChoice[] | undefined {
  const items = record(schema.items);
  const values = stringList(items.enum);
  if (values) return values.map((value) => ({ value, title: value }));
  const options = Array.isArray(items.anyOf) ? items.anyOf.map(record) : undefined;
  if (options?.every((o) => typeof o.const === 'string')) {
    return options.map((o) => ({
      value: o.const as string,
      title: typeof o.title === 'string' ? o.title : (o.const as string),
    }));
  }
  return undefined;
}

function kindOf(schema: Loose): { kind: FieldKind; choices?: FieldChoice[] } {
  if (schema.type === 'array') {
    const choices = multiChoices(schema);
    return choices ? { kind: 'choices', choices } : { kind: 'other' };
  }
  if (schema.type === 'string') {
    const choices = singleChoices(schema);
    return choices ? { kind: 'choice', choices } : { kind: 'string' };
  }
  if (schema.type === 'number' || schema.type === 'integer' || schema.type === 'boolean') {
    return { kind: schema.type };
  }
  return { kind: 'other' };
}

/** The form's fields in the server's order, with kind, choices and whether each is secret. */
export function formFields(schema: unknown): FormField[] {
  const root = record(schema);
  const required = new Set(stringList(root.required) ?? []);
  return Object.entries(record(root.properties)).map(([name, raw]) => {
    const field = record(raw);
    const { kind, choices } = kindOf(field);
    return {
      name,
      kind,
      title: typeof field.title === 'string' && field.title !== '' ? field.title : name,
      ...(typeof field.description === 'string' && { description: field.description }),
      required: required.has(name),
      secret: isSecretField(name, field),
      ...(choices && { choices }),
      ...(field.default !== undefined && { default: field.default }),
      schema: field,
    };
  });
}

/** The names of the form's secret fields, which front-ends read without echo. */
export function secretFieldNames(schema: unknown): string[] {
  return formFields(schema)
    .filter((f) => f.secret)
    .map((f) => f.name);
}

function numberIn(value: number, schema: Loose): string | undefined {
  if (typeof schema.minimum === 'number' && value < schema.minimum) return `at least ${schema.minimum}`;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return `at most ${schema.maximum}`;
  return undefined;
}

function choiceText(choices: readonly FieldChoice[]): string {
  return choices.map((c) => c.value).join(', ');
}

/**
 * Why `value` does not fit `field`, in words that never repeat the value; undefined when it
 * fits. Checks the JSON type, enum membership, string length and numeric bounds.
 */
export function fieldProblem(field: FormField, value: unknown): string | undefined {
  const s = field.schema;
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      const length = [...value].length;
      if (typeof s.minLength === 'number' && length < s.minLength)
        return `must have at least ${s.minLength} characters`;
      if (typeof s.maxLength === 'number' && length > s.maxLength)
        return `must have at most ${s.maxLength} characters`;
      return undefined;
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `must be a${field.kind === 'integer' ? 'n' : ''} ${field.kind}`;
      if (field.kind === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      const bound = numberIn(value, s);
      return bound && `must be ${bound}`;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'choice':
      return typeof value === 'string' && field.choices?.some((c) => c.value === value)
        ? undefined
        : `must be one of: ${choiceText(field.choices ?? [])}`;
    case 'choices': {
      if (!Array.isArray(value)) return 'must be a list of choices';
      const allowed = new Set(field.choices?.map((c) => c.value));
      if (!value.every((v) => typeof v === 'string' && allowed.has(v)))
        return `must hold only choices from: ${choiceText(field.choices ?? [])}`;
      if (typeof s.minItems === 'number' && value.length < s.minItems)
        return `must hold at least ${s.minItems} choices`;
      if (typeof s.maxItems === 'number' && value.length > s.maxItems)
        return `must hold at most ${s.maxItems} choices`;
      return undefined;
    }
    case 'other': {
      const primitive = ['string', 'number', 'boolean'].includes(typeof value);
      return primitive || stringList(value)
        ? undefined
        : 'must be text, a number, true/false or a list of text';
    }
  }
}

/**
 * Checks an accepted answer against the form and returns a copy holding only its fields.
 * Throws INVALID_ARGUMENT naming every missing, unknown or ill-typed field (never a value).
 */
export function checkFormContent(schema: unknown, content: unknown): ElicitationContent {
  const fields = formFields(schema);
  if (content !== undefined && (typeof content !== 'object' || content === null || Array.isArray(content))) {
    throw new SwitchboardError('INVALID_ARGUMENT', 'The answer to a form must be an object of field values.');
  }
  const given = (content ?? {}) as Loose;
  const known = new Set(fields.map((f) => f.name));
  const problems: string[] = [];
  const badFields = Object.keys(given).filter((k) => !known.has(k));
  if (badFields.length > 0) problems.push(`unknown fields ${badFields.map((k) => `"${k}"`).join(', ')}`);
  const out: ElicitationContent = {};
  for (const field of fields) {
    const value = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    const problem =
      value === undefined || value === null
        ? field.required
          ? 'is required'
          : undefined
        : fieldProblem(field, value);
    if (problem) {
      badFields.push(field.name);
      problems.push(`field "${field.name}" ${problem}`);
    } else if (value !== undefined && value !== null) {
      out[field.name] = (Array.isArray(value) ? [...value] : value) as ElicitationContent[string];
    }
  }
  if (problems.length > 0) {
    throw new SwitchboardError(
      'INVALID_ARGUMENT',
      `The answer does not fit the form: ${problems.join('; ')}. Correct it and answer again.`,
      { details: { fields: badFields } },
    );
  }
  return out;
}
