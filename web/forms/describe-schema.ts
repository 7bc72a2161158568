/**
 * JSON Schema (the subset tools and elicitations use) → a description of the form to show
 * (form-values.ts turns what is entered back into JSON). Pure: the form component
 * (schema-form.tsx) only draws what this decides. What a form cannot express becomes a JSON
 * text field (`json`), so one odd property does not cost the whole form.
 */

type Loose = Readonly<Record<string, unknown>>;

/** One choice of an enum: the JSON value sent and the words shown. */
export interface Choice {
  readonly value: unknown;
  readonly label: string;
}

interface Common {
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
}

/** How one value is asked for. */
export type FieldSpec =
  | (Common & {
      readonly kind: 'string';
      /** A textarea rather than one line. */
      readonly multiline: boolean;
      /** Masked input, never echoed (`format: password`, `writeOnly`, or named secret). */
      readonly secret: boolean;
      /** The input's `type` for formats browsers know (`email`, `url`, `date`). */
      readonly inputType: 'text' | 'email' | 'url' | 'date';
      readonly minLength?: number;
      readonly maxLength?: number;
      readonly pattern?: string;
    })
  | (Common & {
      readonly kind: 'number';
      readonly integer: boolean;
      readonly minimum?: number;
      readonly maximum?: number;
    })
  | (Common & { readonly kind: 'boolean' })
  | (Common & { readonly kind: 'enum'; readonly choices: readonly Choice[] })
  | (Common & { readonly kind: 'choices'; readonly choices: readonly Choice[] })
  | (Common & {
      readonly kind: 'array';
      readonly items: FieldSpec;
      readonly minItems?: number;
      readonly maxItems?: number;
    })
  | (Common & { readonly kind: 'object'; readonly fields: readonly ObjectField[] })
  | (Common & { readonly kind: 'json'; readonly reason: string });

/** A property of an object: its name, whether it is required, and how it is asked for. */
export interface ObjectField {
  readonly name: string;
  readonly required: boolean;
  readonly spec: FieldSpec;
}

export interface DescribeOptions {
  /** Top-level fields to mask whatever their schema says (an elicitation's secret fields). */
  readonly secretFields?: readonly string[];
}

// Properties people fill with paragraphs or code rather than a word: matched by exact name.
const LONG_TEXT_NAMES = new Set(['content', 'text', 'body', 'code', 'script', 'prompt', 'markdown', 'patch']);
const MAX_DEPTH = 8;

/** `value` when it is a plain JSON object, else undefined. */
export function record(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function common(schema: Loose): Common {
  const title = text(schema.title);
  const description = text(schema.description);
  return {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(schema.default !== undefined && { default: schema.default }),
  };
}

/** The type a schema names, ignoring a `null` alternative (`["string", "null"]`). */
function typeOf(schema: Loose): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    return types.length === 1 && typeof types[0] === 'string' ? types[0] : undefined;
  }
  return undefined;
}

/** The choices of an enum: `enum` (with `enumNames`), or `oneOf`/`anyOf` of titled `const`s. */
function choicesOf(schema: Loose): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value, label: text(names[i]) ?? labelOf(value) }));
  }
  const options = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  const consts = options.map(record);
  if (consts.length === 0 || !consts.every((o) => o !== undefined && 'const' in o)) return undefined;
  return consts.map((o) => ({ value: o!.const, label: text(o!.title) ?? labelOf(o!.const) }));
}

function labelOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function json(schema: Loose, reason: string): FieldSpec {
  return { kind: 'json', reason, ...common(schema) };
}

/** How to ask for a value of `schema`. Never throws: the unknown becomes a JSON field. */
export function describeSchema(schema: unknown, options: DescribeOptions = {}): FieldSpec {
  return describe(record(schema) ?? {}, options.secretFields ?? [], 0, undefined);
}

function describe(schema: Loose, secretFields: readonly string[], depth: number, name?: string): FieldSpec {
  if (depth > MAX_DEPTH) return json(schema, 'nested too deep for a form');
  if (schema.$ref !== undefined) return json(schema, 'uses $ref');
  const choices = choicesOf(schema);
  if (choices) return { kind: 'enum', choices, ...common(schema) };
  const type = typeOf(schema);
  switch (type) {
    case 'string': {
      const format = text(schema.format);
      const secret =
        format === 'password' ||
        schema.writeOnly === true ||
        (name !== undefined && secretFields.includes(name));
      const maxLength = finite(schema.maxLength);
      const minLength = finite(schema.minLength);
      const pattern = text(schema.pattern);
      const multiline =
        !secret &&
        (format === 'textarea' ||
          (maxLength !== undefined && maxLength > 200) ||
          (name !== undefined && LONG_TEXT_NAMES.has(name)) ||
          (typeof schema.default === 'string' && schema.default.includes('\n')));
      return {
        kind: 'string',
        multiline,
        secret,
        inputType:
          format === 'email' ? 'email' : format === 'uri' ? 'url' : format === 'date' ? 'date' : 'text',
        ...(minLength !== undefined && { minLength }),
        ...(maxLength !== undefined && { maxLength }),
        ...(pattern !== undefined && { pattern }),
        ...common(schema),
      };
    }
    case 'number':
    case 'integer': {
      const minimum = finite(schema.minimum) ?? finite(schema.exclusiveMinimum);
      const maximum = finite(schema.maximum) ?? finite(schema.exclusiveMaximum);
      return {
        kind: 'number',
        integer: type === 'integer',
        ...(minimum !== undefined && { minimum }),
        ...(maximum !== undefined && { maximum }),
        ...common(schema),
      };
    }
    case 'boolean':
      return { kind: 'boolean', ...common(schema) };
    case 'array': {
      const items = record(schema.items);
      if (!items) return json(schema, 'an array without an item schema');
      const minItems = finite(schema.minItems);
      const maxItems = finite(schema.maxItems);
      const limits = {
        ...(minItems !== undefined && { minItems }),
        ...(maxItems !== undefined && { maxItems }),
      };
      const itemChoices = choicesOf(items);
      if (itemChoices) return { kind: 'choices', choices: itemChoices, ...common(schema) };
      return { kind: 'array', items: describe(items, [], depth + 1), ...limits, ...common(schema) };
    }
    case 'object':
    case undefined: {
      const properties = record(schema.properties);
      if (type === undefined && !properties) return json(schema, 'no type given');
      if (!properties && record(schema.additionalProperties)) return json(schema, 'a map of free-form keys');
      const required = Array.isArray(schema.required) ? schema.required : [];
      const fields = Object.entries(properties ?? {}).map(([key, value]) => ({
        name: key,
        required: required.includes(key),
        spec: describe(record(value) ?? {}, depth === 0 ? secretFields : [], depth + 1, key),
      }));
      return { kind: 'object', fields, ...common(schema) };
    }
    default:
      return json(schema, `type ${JSON.stringify(schema.type)}`);
  }
}

/** Whether a field is asked with a select of (not set) / true / false rather than a checkbox. */
export function isTriState(spec: FieldSpec, required: boolean): boolean {
  return spec.kind === 'boolean' && !required && typeof spec.default !== 'boolean';
}
