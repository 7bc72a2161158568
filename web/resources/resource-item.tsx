import type { ApiContent, ApiResource } from '../../src/gateway/api/api-types.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { ResourceContents } from './resource-contents.js';
import { useRequest } from './use-request.js';

/** What `GET /api/resources/read` answers. */
export interface ReadAnswer {
  readonly contents: readonly ApiContent[];
}

/** One resource of the list: its name, URI, type and description, and Read to see its contents. */
export function ResourceItem(props: { readonly resource: ApiResource }) {
  const { resource } = props;
  const { client } = useApp();
  const read = useRequest<ReadAnswer>();
  const label = resource.title ?? resource.name;
  const shown = read.state.data !== undefined || read.state.error !== undefined;
  return (
    <li class="resource-item" data-testid="resource" data-uri={resource.uri}>
      <div class="resource-head">
        <strong class="resource-name">{label}</strong>
        {label !== resource.name && <span class="muted"> ({resource.name})</span>}
        <code class="resource-uri">{resource.uri}</code>
        {resource.mimeType && <span class="chip">{resource.mimeType}</span>}
      </div>
      {resource.description && <p class="muted resource-description">{resource.description}</p>}
      <div class="actions">
        <button
          type="button"
          disabled={read.state.loading}
          onClick={() =>
            read.run((signal) =>
              client.get<ReadAnswer>(
                '/api/resources/read',
                { uri: resource.uri, server: resource.server },
                { signal },
              ),
            )
          }
        >
          {shown ? 'Read again' : 'Read'}
          <span class="sr-only"> {label}</span>
        </button>
        {shown && (
          <button type="button" class="button-quiet" onClick={read.clear}>
            Hide<span class="sr-only"> the contents of {label}</span>
          </button>
        )}
      </div>
      <ReadOutcome uri={resource.uri} state={read.state} />
    </li>
  );
}

/** A read under way, failed, or done: its status for screen readers, the error, or the contents. */
export function ReadOutcome(props: {
  readonly uri: string;
  readonly state: { readonly loading: boolean; readonly data?: ReadAnswer; readonly error?: unknown };
}) {
  const { state } = props;
  return (
    <>
      <p class="read-status" role="status" aria-live="polite">
        {state.loading ? 'Reading…' : ''}
      </p>
      {!state.loading && <ErrorBanner error={state.error} />}
      {state.data && !state.loading && <ResourceContents uri={props.uri} contents={state.data.contents} />}
    </>
  );
}
