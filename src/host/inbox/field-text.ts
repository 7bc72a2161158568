import { type ElicitationContent, type FormField, fieldProblem } from './elicitation-form.js';

/**
 * Typed text → a form field's value, for front-ends that read answers as lines (the terminal
 * prompt). Numbers, integers, yes/no, a choice by number, value or title, several choices
 * comma-separated. Problems are worded without the text typed: it may be a secret.
 */

export type FieldReading =
  | { readonly kind: 'value'; readonly value: ElicitationContent[string] }
  | { readonly kind: 'skip' }
  | { readonly kind: 'problem'; readonly problem: string };

const YES = new Set(['y', 'yes', 'true', '1']);
const NO = new Set(['n', 'no', 'false', '0']);

function pickChoice(field: FormField, text: string): string | undefined {
  const choices = field.choices ?? [];
  const byNumber = /^\d+$/.test(text) ? choices[Number(text) - 1] : undefined;
  if (byNumber) return byNumber.value;
  const lower = text.toLowerCase();
  return (
    choices.find((c) => c.value === text)?.value ??
    choices.find((c) => c.title.toLowerCase() === lower)?.value
  );
}

function convert(field: FormField, raw: string): FieldReading {
  const text = raw.trim();
  switch (field.kind) {
    case 'number':
    case 'integer': {
      const value = Number(text);
      return Number.isFinite(value)
        ? { kind: 'value', value }
        : { kind: 'problem', problem: `must be a${field.kind === 'integer' ? 'n' : ''} ${field.kind}` };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (YES.has(lower)) return { kind: 'value', value: true };
      if (NO.has(lower)) return { kind: 'value', value: false };
      return { kind: 'problem', problem: 'must be y or n' };
    }
    case 'choice': {
      const value = pickChoice(field, text);
      return value === undefined
        ? { kind: 'problem', problem: 'must be one of the numbered choices' }
        : { kind: 'value', value };
    }
    case 'choices': {
      const parts = text
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      const values = parts.map((p) => pickChoice(field, p));
      return values.every((v) => v !== undefined)
        ? { kind: 'value', value: [...new Set(values)] }
        : { kind: 'problem', problem: 'must be numbered choices separated by commas' };
    }
    default:
      // Text is taken as typed: leading or trailing spaces may belong to a password.
      return { kind: 'value', value: raw };
  }
}

/**
 * Reads one typed answer for `field`. An empty answer takes the default, skips an optional
 * field, and is a problem for a required one. The value is checked against the field's
 * schema (bounds, lengths, choices).
 */
export function readFieldText(field: FormField, text: string): FieldReading {
  if (text.trim() === '') {
    if (field.default !== undefined) {
      const problem = fieldProblem(field, field.default);
      return problem
        ? { kind: 'problem', problem }
        : { kind: 'value', value: field.default as ElicitationContent[string] };
    }
    return field.required ? { kind: 'problem', problem: 'is required' } : { kind: 'skip' };
  }
  const reading = convert(field, text);
  if (reading.kind !== 'value') return reading;
  const problem = fieldProblem(field, reading.value);
  return problem ? { kind: 'problem', problem } : reading;
}
