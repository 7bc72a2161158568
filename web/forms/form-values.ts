import { type FieldSpec, isTriState, record } from './describe-schema.js';

/**
 * A generated form's values: what a fresh form starts with, what it shows for given JSON (raw
 * JSON → form), and the JSON it stands for, checked against the schema (form → arguments).
 * Pure.
 */

/**
 * What a form holds while it is edited: text for strings, numbers (as typed) and JSON
 * fields; a boolean for checkboxes ('' / 'true' / 'false' for an optional one with no
 * default); the index of the chosen option as text for enums ('' = none); a boolean per
 * choice for multi-select; a list for arrays; a record for objects.
 */
export type FormValue = string | boolean | readonly FormValue[] | { readonly [name: string]: FormValue };

/** A problem with one field, at its path (`edits.0.oldText`). */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** The value a fresh form starts with: defaults where the schema has them, else empty. */
export function initialValue(spec: FieldSpec, required = true): FormValue {
  return toFormValue(spec, spec.default, required);
}

/**
 * The form value showing `value` (a JSON value of the field, or undefined for "not set"),
 * e.g. when switching from raw JSON back to the form. What does not fit is left empty.
 */
export function toFormValue(spec: FieldSpec, value: unknown, required = true): FormValue {
  switch (spec.kind) {
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
    case 'boolean':
      if (isTriState(spec, required)) return typeof value === 'boolean' ? String(value) : '';
      return typeof value === 'boolean' ? value : false;
    case 'enum': {
      const index = spec.choices.findIndex((c) => sameJson(c.value, value));
      return index === -1 ? '' : String(index);
    }
    case 'choices': {
      const picked = Array.isArray(value) ? value : [];
      return spec.choices.map((c) => picked.some((p) => sameJson(p, c.value)));
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => toFormValue(spec.items, item)) : [];
    case 'object': {
      const given = record(value) ?? {};
      return Object.fromEntries(
        spec.fields.map((f) => [f.name, toFormValue(f.spec, given[f.name] ?? f.spec.default, f.required)]),
      );
    }
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 2);
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The JSON a form value stands for (undefined: not set), and what is wrong with it. */
export interface Collected {
  readonly value?: unknown;
  readonly errors: readonly FieldError[];
}

/**
 * Turns a form value into JSON, checking what the schema says (required, numbers, limits,
 * JSON text). `path` names the field in error messages. Empty optional fields are left out.
 */
export function collectValue(spec: FieldSpec, value: FormValue, path = '', required = true): Collected {
  const errors: FieldError[] = [];
  const fail = (message: string): Collected => ({ errors: [{ path, message }] });
  const empty = (): Collected => (required ? fail('Required.') : { errors });
  switch (spec.kind) {
    case 'string': {
      const s = typeof value === 'string' ? value : '';
      if (s === '') return empty();
      if (spec.minLength !== undefined && s.length < spec.minLength)
        return fail(`At least ${spec.minLength} characters.`);
      if (spec.maxLength !== undefined && s.length > spec.maxLength)
        return fail(`At most ${spec.maxLength} characters.`);
      return { value: s, errors };
    }
    case 'number': {
      const s = typeof value === 'string' ? value.trim() : '';
      if (s === '') return empty();
      const n = Number(s);
      if (!Number.isFinite(n)) return fail('Not a number.');
      if (spec.integer && !Number.isInteger(n)) return fail('A whole number.');
      if (spec.minimum !== undefined && n < spec.minimum) return fail(`At least ${spec.minimum}.`);
      if (spec.maximum !== undefined && n > spec.maximum) return fail(`At most ${spec.maximum}.`);
      return { value: n, errors };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { value, errors };
      if (value === 'true' || value === 'false') return { value: value === 'true', errors };
      return empty();
    case 'enum': {
      const choice = typeof value === 'string' && value !== '' ? spec.choices[Number(value)] : undefined;
      return choice ? { value: choice.value, errors } : empty();
    }
    case 'choices': {
      const flags = Array.isArray(value) ? value : [];
      const picked = spec.choices.filter((_, i) => flags[i] === true).map((c) => c.value);
      return picked.length === 0 && !required ? { errors } : { value: picked, errors };
    }
    case 'array': {
      const items = Array.isArray(value) ? (value as readonly FormValue[]) : [];
      if (items.length === 0 && !required) return { errors };
      const out: unknown[] = [];
      items.forEach((item, i) => {
        const got = collectValue(spec.items, item, join(path, String(i)), true);
        errors.push(...got.errors);
        out.push(got.value);
      });
      if (spec.minItems !== undefined && items.length < spec.minItems)
        errors.push({ path, message: `At least ${spec.minItems} items.` });
      if (spec.maxItems !== undefined && items.length > spec.maxItems)
        errors.push({ path, message: `At most ${spec.maxItems} items.` });
      return { value: out, errors };
    }
    case 'object': {
      const given = record(value) ?? {};
      const out: Record<string, unknown> = {};
      for (const field of spec.fields) {
        const got = collectValue(
          field.spec,
          (given[field.name] as FormValue | undefined) ?? initialValue(field.spec, field.required),
          join(path, field.name),
          field.required,
        );
        errors.push(...got.errors);
        if (got.value !== undefined) out[field.name] = got.value;
      }
      // An optional nested object left entirely empty is left out, not sent as {}.
      if (!required && path !== '' && Object.keys(out).length === 0 && errors.length === 0) return { errors };
      return { value: out, errors };
    }
    case 'json': {
      const s = typeof value === 'string' ? value.trim() : '';
      if (s === '') return empty();
      try {
        return { value: JSON.parse(s), errors };
      } catch (error) {
        return fail(`Not valid JSON: ${(error as Error).message}`);
      }
    }
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
