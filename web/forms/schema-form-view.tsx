import { useId } from 'preact/hooks';
import { SchemaFields } from './schema-form.js';
import type { SchemaFormState } from './use-schema-form.js';

/**
 * A generated form with its "Raw JSON" switch: the fields, or one JSON text area for
 * arguments the form cannot express. The parent owns the `<form>` and its submit button.
 */
export function SchemaFormView(props: { readonly form: SchemaFormState; readonly allowRaw?: boolean }) {
  const { form } = props;
  const id = useId();
  const general = form.errors.find((e) => e.path === '')?.message;
  return (
    <div class="schema-form">
      {props.allowRaw !== false && form.spec.kind === 'object' && (
        <label class="check raw-toggle">
          <input type="checkbox" checked={form.raw} onChange={form.toggleRaw} />
          Raw JSON
        </label>
      )}
      {form.raw ? (
        <div class="field">
          <label for={id}>Arguments (JSON)</label>
          <textarea
            id={id}
            class="code"
            rows={8}
            spellcheck={false}
            value={form.rawText}
            aria-invalid={general ? true : undefined}
            aria-describedby={general ? `${id}-err` : undefined}
            onInput={(e) => form.setRawText(e.currentTarget.value)}
          />
        </div>
      ) : (
        <SchemaFields spec={form.spec} value={form.value} onChange={form.setValue} errors={form.errors} />
      )}
      {general && (
        <p id={`${id}-err`} class="field-error" role="alert">
          {general}
        </p>
      )}
      {!form.raw && form.errors.length > 0 && !general && (
        <p class="field-error" role="alert">
          Some fields need attention.
        </p>
      )}
    </div>
  );
}
