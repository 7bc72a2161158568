import type { ComponentChildren } from 'preact';
import type { FieldSpec, ObjectField } from './describe-schema.js';
import { type FormValue, initialValue } from './form-values.js';

/** What the field of one item needs; the form (schema-form.tsx) draws it. */
export interface ArrayItemField {
  readonly field: ObjectField;
  readonly path: string;
  readonly value: FormValue;
  readonly onChange: (value: FormValue) => void;
}

/**
 * The items of an array field, each with a Remove button, and "Add to <field>" that appends
 * an item with its schema's default. Items may be of any kind the form supports.
 */
export function ArrayItems(props: {
  readonly spec: FieldSpec;
  readonly label: string;
  readonly path: string;
  readonly value: FormValue;
  readonly onChange: (value: FormValue) => void;
  readonly renderItem: (item: ArrayItemField) => ComponentChildren;
}) {
  const items = Array.isArray(props.value) ? (props.value as readonly FormValue[]) : [];
  const set = (next: readonly FormValue[]) => props.onChange(next);
  return (
    <>
      {items.length === 0 && <p class="muted">No items.</p>}
      <ol class="array-items">
        {items.map((item, i) => (
          // Items have no identity of their own; their place is their key.
          <li key={i} class="array-item">
            {props.renderItem({
              field: { name: `${props.label} ${i + 1}`, required: true, spec: props.spec },
              path: props.path === '' ? String(i) : `${props.path}.${i}`,
              value: item,
              onChange: (next) => set(items.map((old, j) => (j === i ? next : old))),
            })}
            <button
              type="button"
              class="button-quiet"
              aria-label={`Remove ${props.label} ${i + 1}`}
              onClick={() => set(items.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button type="button" onClick={() => set([...items, initialValue(props.spec)])}>
        Add to {props.label}
      </button>
    </>
  );
}
