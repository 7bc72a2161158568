import { useId, useMemo, useState } from 'preact/hooks';
import type { ApiResourceTemplate } from '../../src/gateway/api/api-types.js';
import type { FormValue } from '../forms/form-values.js';
import { SchemaFormView } from '../forms/schema-form-view.js';
import { useSchemaForm } from '../forms/use-schema-form.js';
import { useApp } from '../shell/app-context.js';
import { type ReadAnswer, ReadOutcome } from './resource-item.js';
import { stringFieldsSchema } from './string-fields.js';
import { expandUriTemplate, type ParsedTemplate, parseUriTemplate } from './uri-template.js';
import { useRequest } from './use-request.js';

/**
 * One resource template: its URI template, a form for its `{variables}` with the URI they
 * make, and Read. A template this page cannot fill (RFC 6570 beyond level 1) gets a URI field
 * to complete by hand instead.
 */
export function TemplateItem(props: { readonly template: ApiResourceTemplate }) {
  const { template } = props;
  const parsed = useMemo(() => parseUriTemplate(template.uriTemplate), [template.uriTemplate]);
  const { client } = useApp();
  const read = useRequest<ReadAnswer>();
  const [readUri, setReadUri] = useState('');
  const readIt = (uri: string) => {
    setReadUri(uri);
    read.run((signal) =>
      client.get<ReadAnswer>('/api/resources/read', { uri, server: template.server }, { signal }),
    );
  };
  return (
    <li class="resource-item" data-testid="template" data-template={template.uriTemplate}>
      <div class="resource-head">
        <strong class="resource-name">{template.name}</strong>
        <code class="resource-uri">{template.uriTemplate}</code>
        {template.mimeType && <span class="chip">{template.mimeType}</span>}
      </div>
      {template.description && <p class="muted resource-description">{template.description}</p>}
      {parsed.unsupported.length === 0 ? (
        <VariablesForm template={template} parsed={parsed} busy={read.state.loading} onRead={readIt} />
      ) : (
        <UriForm template={template} parsed={parsed} busy={read.state.loading} onRead={readIt} />
      )}
      <ReadOutcome uri={readUri} state={read.state} />
    </li>
  );
}

interface FormProps {
  readonly template: ApiResourceTemplate;
  readonly parsed: ParsedTemplate;
  readonly busy: boolean;
  readonly onRead: (uri: string) => void;
}

/** A field per variable (all required: an empty one would make another URI), and the URI they make. */
function VariablesForm(props: FormProps) {
  const { template, parsed } = props;
  const schema = useMemo(
    () => stringFieldsSchema(parsed.variables.map((name) => ({ name, required: true }))),
    [parsed],
  );
  const form = useSchemaForm(schema);
  const uri = expandUriTemplate(parsed, textValues(form.value), { unset: 'keep' });
  return (
    <form
      class="template-form"
      aria-label={`Variables of ${template.name}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const values = form.collect();
        if (values) props.onRead(expandUriTemplate(parsed, textValues(values)));
      }}
    >
      {parsed.variables.length > 0 && <SchemaFormView form={form} allowRaw={false} />}
      <p class="uri-preview">
        URI: <code data-testid="template-uri">{uri}</code>
      </p>
      <div class="actions">
        <button type="submit" disabled={props.busy}>
          Read<span class="sr-only"> {template.name}</span>
        </button>
      </div>
    </form>
  );
}

/** The URI to read, typed by hand from the template shown beside it. */
function UriForm(props: FormProps) {
  const { template, parsed } = props;
  const id = useId();
  const [uri, setUri] = useState(template.uriTemplate);
  const [missing, setMissing] = useState(false);
  return (
    <form
      class="template-form"
      aria-label={`URI from ${template.name}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setMissing(uri.trim() === '');
        if (uri.trim() !== '') props.onRead(uri.trim());
      }}
    >
      <p class="muted">
        This template uses {parsed.unsupported.join(' ')}, which this page cannot fill in: write the URI
        yourself.
      </p>
      <div class="field">
        <label for={id}>URI</label>
        <input
          id={id}
          value={uri}
          spellcheck={false}
          aria-invalid={missing ? true : undefined}
          aria-describedby={missing ? `${id}-err` : undefined}
          onInput={(e) => setUri(e.currentTarget.value)}
        />
        {missing && (
          <p id={`${id}-err`} class="field-error">
            Required.
          </p>
        )}
      </div>
      <div class="actions">
        <button type="submit" disabled={props.busy}>
          Read<span class="sr-only"> {template.name}</span>
        </button>
      </div>
    </form>
  );
}

/** The text values of a form's fields (its value is a record of strings for these forms). */
function textValues(value: FormValue | Record<string, unknown>): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
