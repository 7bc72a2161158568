import { useId, useMemo, useState } from 'preact/hooks';
import type { ApiResource, ApiResourceTemplate } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';
import { groupByServer, matchesQuery } from './catalog-list.js';
import { ResourceItem } from './resource-item.js';
import { TemplateItem } from './template-item.js';

/** What `GET /api/resources` answers. */
interface ResourceList {
  readonly resources: readonly ApiResource[];
  readonly templates: readonly ApiResourceTemplate[];
}

/**
 * The resources of every server, grouped by server, with a filter; each can be read on the
 * page. Below them the resource templates, each with a form for its variables. Loads again
 * when the catalog changes.
 */
export function ResourcesPage() {
  const { client } = useApp();
  const { catalogEtag } = useStore(live);
  const list = useAsync(() => client.get<ResourceList>('/api/resources'), [client, catalogEtag]);
  const [query, setQuery] = useState('');
  const id = useId();
  const resources = useMemo(
    () =>
      groupByServer(
        (list.data?.resources ?? []).filter((r) =>
          matchesQuery([r.server, r.name, r.title, r.uri, r.mimeType, r.description], query),
        ),
        (r) => r.title ?? r.name,
      ),
    [list.data, query],
  );
  const templates = useMemo(
    () =>
      groupByServer(
        (list.data?.templates ?? []).filter((t) =>
          matchesQuery([t.server, t.name, t.uriTemplate, t.mimeType, t.description], query),
        ),
        (t) => t.name,
      ),
    [list.data, query],
  );
  const none = list.data && resources.length === 0 && templates.length === 0;

  return (
    <section aria-labelledby="resources-title">
      <h1 id="resources-title">Resources</h1>
      <div class="toolbar">
        <label for={`${id}-filter`}>Filter resources</label>
        <input
          id={`${id}-filter`}
          type="search"
          placeholder="name, URI, type or description"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <p class="muted">Loading resources…</p>}
      {none && (
        <p class="muted">
          {query
            ? `No resource or template matches "${query}".`
            : 'No resources: the connected servers offer none, or none is connected.'}
        </p>
      )}
      {resources.map(([server, items]) => (
        <section key={server} class="tool-group" aria-labelledby={`${id}-r-${server}`}>
          <h2 id={`${id}-r-${server}`}>{server}</h2>
          <ul class="resource-list">
            {items.map((resource) => (
              <ResourceItem key={resource.uri} resource={resource} />
            ))}
          </ul>
        </section>
      ))}
      {templates.length > 0 && (
        <section aria-labelledby={`${id}-templates`} data-testid="resource-templates">
          <h2 id={`${id}-templates`}>Resource templates</h2>
          {templates.map(([server, items]) => (
            <section key={server} class="tool-group" aria-labelledby={`${id}-t-${server}`}>
              <h3 id={`${id}-t-${server}`}>{server}</h3>
              <ul class="resource-list">
                {items.map((template) => (
                  <TemplateItem key={template.uriTemplate} template={template} />
                ))}
              </ul>
            </section>
          ))}
        </section>
      )}
    </section>
  );
}
