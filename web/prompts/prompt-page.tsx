import { useMemo } from 'preact/hooks';
import type { ApiPrompt, ApiPromptMessage } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { SchemaFormView } from '../forms/schema-form-view.js';
import { useSchemaForm } from '../forms/use-schema-form.js';
import { stringFieldsSchema } from '../resources/string-fields.js';
import { useRequest } from '../resources/use-request.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useAsync } from '../state/use-async.js';
import { PromptMessages } from './prompt-messages.js';

/** What `POST /api/prompts/{server}/{name}` answers. */
interface PromptAnswer {
  readonly description?: string;
  readonly messages: readonly ApiPromptMessage[];
}

/** One prompt: its description, a form for its arguments, and Get to see the messages it makes. */
export function PromptPage(props: { readonly server: string; readonly name: string }) {
  const { client } = useApp();
  const list = useAsync(
    () => client.get<{ prompts: ApiPrompt[] }>('/api/prompts', { server: props.server }),
    [client, props.server],
  );
  const prompt = list.data?.prompts.find((p) => p.name === props.name);
  return (
    <section aria-labelledby="prompt-title">
      <p class="breadcrumb">
        <a href={routeHref({ page: 'prompts' })}>Prompts</a> / {props.server}
      </p>
      <h1 id="prompt-title">{prompt?.title ?? props.name}</h1>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <p class="muted">Loading the prompt…</p>}
      {list.data && !prompt && (
        <p class="banner banner-error" role="alert">
          Server "{props.server}" offers no prompt "{props.name}". The Prompts page lists those it has.
        </p>
      )}
      {prompt && <PromptDetails prompt={prompt} />}
    </section>
  );
}

function PromptDetails(props: { readonly prompt: ApiPrompt }) {
  const { prompt } = props;
  const { client } = useApp();
  const schema = useMemo(() => stringFieldsSchema(prompt.arguments), [prompt.arguments]);
  const form = useSchemaForm(schema);
  const get = useRequest<PromptAnswer>();
  const { state } = get;

  return (
    <>
      <p class="tool-meta">
        <code>{prompt.name}</code> on server <strong>{prompt.server}</strong>
      </p>
      {prompt.description && <p class="tool-description-full">{prompt.description}</p>}
      <form
        class="panel"
        aria-label={`Arguments of ${prompt.name}`}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const args = form.collect();
          if (!args || state.loading) return;
          get.run((signal) =>
            client.post<PromptAnswer>(
              `/api/prompts/${segment(prompt.server)}/${segment(prompt.name)}`,
              { arguments: args },
              { signal },
            ),
          );
        }}
      >
        {prompt.arguments.length > 0 ? (
          <SchemaFormView form={form} allowRaw={false} />
        ) : (
          <p class="muted">This prompt takes no arguments.</p>
        )}
        <div class="actions">
          <button type="submit" class="button-primary" disabled={state.loading}>
            Get
          </button>
        </div>
      </form>
      <p class="call-status" role="status" aria-live="polite">
        {state.loading ? 'Getting the messages…' : ''}
      </p>
      {!state.loading && <ErrorBanner error={state.error} />}
      {state.data && !state.loading && (
        <PromptMessages
          messages={state.data.messages}
          {...(state.data.description !== undefined && { description: state.data.description })}
        />
      )}
    </>
  );
}
