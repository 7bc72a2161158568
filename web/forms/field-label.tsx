import type { ComponentChildren } from 'preact';

/** A field's label and control, one above the other, with its help and error below. */
export function Labelled(props: {
  readonly id: string;
  readonly label: string;
  readonly required: boolean;
  readonly help: ComponentChildren;
  readonly children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>
        <LabelText label={props.label} required={props.required} />
      </label>
      {props.children}
      {props.help}
    </div>
  );
}

/** A label's words, with the required mark: a red star to see, "(required)" to hear. */
export function LabelText(props: { readonly label: string; readonly required: boolean }) {
  return (
    <>
      {props.label}
      {props.required && (
        <>
          <span class="required-mark" aria-hidden="true">
            {' '}
            *
          </span>
          <span class="sr-only"> (required)</span>
        </>
      )}
    </>
  );
}
