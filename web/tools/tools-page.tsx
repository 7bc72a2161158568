import { useId, useMemo, useState } from 'preact/hooks';
import type { ApiTool } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';

/** Every tool of the catalog, grouped by server, with a search box; loads again when the catalog changes. */
export function ToolsPage() {
  const { client } = useApp();
  const { catalogEtag } = useStore(live);
  const tools = useAsync(() => client.get<{ tools: ApiTool[] }>('/api/tools'), [client, catalogEtag]);
  const [query, setQuery] = useState('');
  const searchId = useId();
  const groups = useMemo(
    () => groupByServer(filterTools(tools.data?.tools ?? [], query)),
    [tools.data, query],
  );

  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools</h1>
      <div class="toolbar">
        <label for={searchId}>Search tools</label>
        <input
          id={searchId}
          type="search"
          placeholder="name, server or description"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      <ErrorBanner error={tools.error} />
      {tools.loading && !tools.data && <p class="muted">Loading tools…</p>}
      {tools.data && groups.length === 0 && (
        <p class="muted">
          {query ? `No tool matches "${query}".` : 'No tools yet: are the servers connected?'}
        </p>
      )}
      {groups.map(([server, list]) => (
        <section key={server} class="tool-group" aria-labelledby={`${searchId}-${server}`}>
          <h2 id={`${searchId}-${server}`}>{server}</h2>
          <ul class="tool-list">
            {list.map((tool) => (
              <li key={tool.name}>
                <a
                  href={routeHref({ page: 'tools', tool: tool.name })}
                  data-testid={`tool-link-${tool.name}`}
                >
                  {tool.tool}
                </a>
                {tool.title && tool.title !== tool.tool && <span class="tool-title"> — {tool.title}</span>}
                {tool.description && <p class="muted tool-description">{firstLine(tool.description)}</p>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}

/** The tools whose name, server, title or description contain every word of `query`. */
function filterTools(tools: readonly ApiTool[], query: string): ApiTool[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return tools.filter((tool) => {
    const haystack = [tool.name, tool.server, tool.title ?? '', tool.description ?? '']
      .join(' ')
      .toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

function groupByServer(tools: readonly ApiTool[]): [string, ApiTool[]][] {
  const groups = new Map<string, ApiTool[]>();
  for (const tool of tools) groups.set(tool.server, [...(groups.get(tool.server) ?? []), tool]);
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([server, list]) => [server, list.sort((a, b) => a.tool.localeCompare(b.tool))]);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
