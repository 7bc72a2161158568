import { useMemo, useState } from 'preact/hooks';
import { type DescribeOptions, describeSchema, type FieldSpec } from './describe-schema.js';
import { collectValue, type FieldError, type FormValue, initialValue, toFormValue } from './form-values.js';

/** A form generated from a JSON Schema, with a "raw JSON" mode for what the form cannot say. */
export interface SchemaFormState {
  readonly spec: FieldSpec;
  readonly value: FormValue;
  readonly setValue: (value: FormValue) => void;
  readonly raw: boolean;
  readonly rawText: string;
  readonly setRawText: (text: string) => void;
  /** Switches between the form and raw JSON, carrying what was entered across. */
  readonly toggleRaw: () => void;
  readonly errors: readonly FieldError[];
  /** The JSON object to send, or undefined after showing what is wrong. */
  readonly collect: () => Record<string, unknown> | undefined;
}

/** The form state of `schema` (an object schema: tool arguments, an elicitation's fields). */
export function useSchemaForm(schema: unknown, options: DescribeOptions = {}): SchemaFormState {
  // Keyed by the names, not the array: callers pass a fresh array on every render.
  const secretKey = (options.secretFields ?? []).join('\n');
  const spec = useMemo(
    () => describeSchema(schema, { secretFields: secretKey === '' ? [] : secretKey.split('\n') }),
    [schema, secretKey],
  );
  const [value, setValue] = useState<FormValue>(() => initialValue(spec));
  const [raw, setRaw] = useState(spec.kind !== 'object');
  // Empty raw text stands for {}; a schema the form cannot show starts in raw mode.
  const [rawText, setRawText] = useState('');
  const [errors, setErrors] = useState<readonly FieldError[]>([]);

  const fromRaw = (): Record<string, unknown> | undefined => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawText.trim() || '{}');
    } catch (error) {
      setErrors([{ path: '', message: `Not valid JSON: ${(error as Error).message}` }]);
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setErrors([{ path: '', message: 'The arguments must be a JSON object: {"name": value, …}.' }]);
      return undefined;
    }
    return parsed as Record<string, unknown>;
  };

  const collect = (): Record<string, unknown> | undefined => {
    if (raw) {
      const parsed = fromRaw();
      if (parsed) setErrors([]);
      return parsed;
    }
    const got = collectValue(spec, value);
    setErrors(got.errors);
    if (got.errors.length > 0) return undefined;
    return (got.value ?? {}) as Record<string, unknown>;
  };

  const toggleRaw = () => {
    if (raw) {
      const parsed = fromRaw();
      if (!parsed) return;
      setValue(toFormValue(spec, parsed));
      setErrors([]);
      setRaw(false);
    } else {
      // What the form holds so far, even if incomplete: the person finishes it as JSON.
      setRawText(JSON.stringify(collectValue(spec, value).value ?? {}, null, 2));
      setErrors([]);
      setRaw(true);
    }
  };

  // Once errors are on show, they follow the edits, so a fixed field stops saying it is wrong.
  const edit = (next: FormValue) => {
    setValue(next);
    if (errors.length > 0) setErrors(collectValue(spec, next).errors);
  };

  return { spec, value, setValue: edit, raw, rawText, setRawText, toggleRaw, errors, collect };
}
