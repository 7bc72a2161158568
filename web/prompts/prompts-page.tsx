import { useId, useMemo, useState } from 'preact/hooks';
import type { ApiPrompt } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { groupByServer, matchesQuery } from '../resources/catalog-list.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';

/** The prompts of every server, grouped by server, with a filter; loads again when the catalog changes. */
export function PromptsPage() {
  const { client } = useApp();
  const { catalogEtag } = useStore(live);
  const list = useAsync(() => client.get<{ prompts: ApiPrompt[] }>('/api/prompts'), [client, catalogEtag]);
  const [query, setQuery] = useState('');
  const id = useId();
  const groups = useMemo(
    () =>
      groupByServer(
        (list.data?.prompts ?? []).filter((p) =>
          matchesQuery([p.server, p.name, p.title, p.description], query),
        ),
        (p) => p.name,
      ),
    [list.data, query],
  );

  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title">Prompts</h1>
      <div class="toolbar">
        <label for={`${id}-filter`}>Filter prompts</label>
        <input
          id={`${id}-filter`}
          type="search"
          placeholder="name, server or description"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <p class="muted">Loading prompts…</p>}
      {list.data && groups.length === 0 && (
        <p class="muted">
          {query
            ? `No prompt matches "${query}".`
            : 'No prompts: the connected servers offer none, or none is connected.'}
        </p>
      )}
      {groups.map(([server, prompts]) => (
        <section key={server} class="tool-group" aria-labelledby={`${id}-${server}`}>
          <h2 id={`${id}-${server}`}>{server}</h2>
          <ul class="tool-list">
            {prompts.map((prompt) => (
              <li key={prompt.name}>
                <a
                  href={routeHref({ page: 'prompts', server, prompt: prompt.name })}
                  data-testid={`prompt-link-${server}-${prompt.name}`}
                >
                  {prompt.name}
                </a>
                {prompt.title && prompt.title !== prompt.name && (
                  <span class="tool-title"> — {prompt.title}</span>
                )}
                <span class="muted"> · {argumentCount(prompt)}</span>
                {prompt.description && <p class="muted tool-description">{prompt.description}</p>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}

function argumentCount(prompt: ApiPrompt): string {
  const n = prompt.arguments.length;
  return n === 0 ? 'no arguments' : n === 1 ? '1 argument' : `${n} arguments`;
}
