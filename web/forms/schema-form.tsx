import { useId } from 'preact/hooks';
import { ArrayItems } from './array-items.js';
import { type FieldSpec, isTriState, type ObjectField } from './describe-schema.js';
import { Labelled, LabelText } from './field-label.js';
import { type FieldError, type FormValue, initialValue } from './form-values.js';

/**
 * The fields of a form described by `describeSchema` (describe-schema.ts), editing a `FormValue`.
 * Every input has a label tied to it, its description and error linked with
 * `aria-describedby`; required fields are marked in text for screen readers too.
 */
export interface SchemaFieldsProps {
  readonly spec: FieldSpec;
  readonly value: FormValue;
  readonly onChange: (value: FormValue) => void;
  readonly errors: readonly FieldError[];
  /** The label of a top-level value that is not an object. */
  readonly label?: string;
}

export function SchemaFields(props: SchemaFieldsProps) {
  const { spec, value, onChange, errors } = props;
  if (spec.kind === 'object') {
    if (spec.fields.length === 0) return <p class="muted">No arguments.</p>;
    return <ObjectFields fields={spec.fields} path="" value={value} onChange={onChange} errors={errors} />;
  }
  return (
    <Field
      field={{ name: props.label ?? 'value', required: true, spec }}
      path=""
      value={value}
      onChange={onChange}
      errors={errors}
    />
  );
}

interface FieldProps {
  readonly field: ObjectField;
  readonly path: string;
  readonly value: FormValue;
  readonly onChange: (value: FormValue) => void;
  readonly errors: readonly FieldError[];
}

function ObjectFields(props: {
  readonly fields: readonly ObjectField[];
  readonly path: string;
  readonly value: FormValue;
  readonly onChange: (value: FormValue) => void;
  readonly errors: readonly FieldError[];
}) {
  const values = asRecord(props.value);
  return (
    <>
      {props.fields.map((field) => (
        <Field
          key={field.name}
          field={field}
          path={join(props.path, field.name)}
          value={values[field.name] ?? initialValue(field.spec, field.required)}
          onChange={(next) => props.onChange({ ...values, [field.name]: next })}
          errors={props.errors}
        />
      ))}
    </>
  );
}

function Field(props: FieldProps) {
  const { field, path, value, onChange, errors } = props;
  const { spec, required } = field;
  const id = useId();
  const label = spec.title ?? field.name;
  const error = errors.find((e) => e.path === path)?.message;
  const describedBy = [spec.description && `${id}-desc`, error && `${id}-err`].filter(Boolean).join(' ');
  const aria = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
    'aria-required': required || undefined,
    'data-field': path,
  };
  const help = (
    <>
      {spec.description && (
        <small id={`${id}-desc`} class="field-help">
          {spec.description}
        </small>
      )}
      {error && (
        <p id={`${id}-err`} class="field-error">
          {error}
        </p>
      )}
    </>
  );

  switch (spec.kind) {
    case 'object':
    case 'array':
    case 'choices':
      return (
        <fieldset class="field field-group" aria-describedby={describedBy || undefined}>
          <legend>
            <LabelText label={label} required={required} />
          </legend>
          {help}
          {spec.kind === 'object' && (
            <ObjectFields
              fields={spec.fields}
              path={path}
              value={value}
              onChange={onChange}
              errors={errors}
            />
          )}
          {spec.kind === 'array' && (
            <ArrayItems
              spec={spec.items}
              label={label}
              path={path}
              value={value}
              onChange={onChange}
              renderItem={(item) => <Field {...item} errors={errors} />}
            />
          )}
          {spec.kind === 'choices' &&
            spec.choices.map((choice, i) => {
              const flags = Array.isArray(value) ? value : [];
              return (
                <label key={choice.label} class="check">
                  <input
                    type="checkbox"
                    checked={flags[i] === true}
                    onChange={(e) => {
                      const next = spec.choices.map((_, j) =>
                        j === i ? e.currentTarget.checked : flags[j] === true,
                      );
                      onChange(next);
                    }}
                  />
                  {choice.label}
                </label>
              );
            })}
        </fieldset>
      );
    case 'boolean':
      if (isTriState(spec, required)) {
        return (
          <Labelled id={id} label={label} required={required} help={help}>
            <select
              {...aria}
              value={typeof value === 'string' ? value : ''}
              onChange={(e) => onChange(e.currentTarget.value)}
            >
              <option value="">(not set)</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          </Labelled>
        );
      }
      return (
        <div class="field field-check">
          <input
            {...aria}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
          />
          <label for={id}>
            <LabelText label={label} required={required} />
          </label>
          {help}
        </div>
      );
    case 'enum':
      return (
        <Labelled id={id} label={label} required={required} help={help}>
          <select
            {...aria}
            value={typeof value === 'string' ? value : ''}
            onChange={(e) => onChange(e.currentTarget.value)}
          >
            <option value="">{required ? 'Choose…' : '(not set)'}</option>
            {spec.choices.map((choice, i) => (
              <option key={choice.label} value={String(i)}>
                {choice.label}
              </option>
            ))}
          </select>
        </Labelled>
      );
    case 'number':
      return (
        <Labelled id={id} label={label} required={required} help={help}>
          <input
            {...aria}
            type="number"
            inputMode={spec.integer ? 'numeric' : 'decimal'}
            step={spec.integer ? 1 : 'any'}
            min={spec.minimum}
            max={spec.maximum}
            value={typeof value === 'string' ? value : ''}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        </Labelled>
      );
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      return (
        <Labelled id={id} label={label} required={required} help={help}>
          {spec.multiline ? (
            <textarea {...aria} rows={5} value={text} onInput={(e) => onChange(e.currentTarget.value)} />
          ) : (
            <input
              {...aria}
              // Preact types each input type separately; 'text' stands for the few used here.
              type={(spec.secret ? 'password' : spec.inputType) as 'text'}
              autoComplete={spec.secret ? 'off' : undefined}
              maxLength={spec.maxLength}
              value={text}
              onInput={(e) => onChange(e.currentTarget.value)}
            />
          )}
        </Labelled>
      );
    }
    case 'json':
      return (
        <Labelled id={id} label={`${label} (JSON)`} required={required} help={help}>
          <textarea
            {...aria}
            class="code"
            rows={4}
            spellcheck={false}
            value={typeof value === 'string' ? value : ''}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
          <small class="field-help">Entered as JSON: {spec.reason}.</small>
        </Labelled>
      );
  }
}

function asRecord(value: FormValue): Readonly<Record<string, FormValue>> {
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, FormValue>) : {};
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
