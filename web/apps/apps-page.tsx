import { useState } from 'preact/hooks';
import type { ApiApp } from '../../src/gateway/api/api-types.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useAsync } from '../state/use-async.js';
import { AppFrame } from './app-frame.js';

/**
 * The Apps page: every tool with an MCP App view, and, for the ones called in this session,
 * the view opened with the tool's last result. A tool not called yet links to its tool page.
 */
export function AppsPage() {
  const { client } = useApp();
  const apps = useAsync(() => client.get<{ apps: ApiApp[] }>('/api/apps'), [client]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const list = apps.data?.apps ?? [];
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Apps</h1>
      <p class="muted">Tools whose results render in an interactive view (MCP Apps), each in a sandbox.</p>
      <ErrorBanner error={apps.error} />
      {apps.loading && !apps.data && <p class="muted">Loading the apps…</p>}
      {apps.data && list.length === 0 && <p class="muted">No connected server offers an app.</p>}
      <ul class="app-list">
        {list.map((app) => (
          <li key={app.name} class="panel">
            <p>
              <a href={routeHref({ page: 'tools', tool: app.name })}>
                <strong>{app.title ?? app.tool}</strong>
              </a>{' '}
              on <strong>{app.server}</strong> <code>{app.resourceUri}</code>
            </p>
            {app.description && <p class="muted">{app.description}</p>}
            {app.last ? (
              open === app.name ? (
                <AppFrame app={app.last} />
              ) : (
                <button type="button" onClick={() => setOpen(app.name)}>
                  Open with the last result
                </button>
              )
            ) : (
              <p class="muted">Run the tool to open its app with a result.</p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
