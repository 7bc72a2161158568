import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiSession } from '../../src/gateway/api/api-types.js';
import type { ApiClient } from '../api/api-client.js';
import { AppsPage } from '../apps/apps-page.js';
import { AuditPage } from '../audit/audit-page.js';
import { EventsPage } from '../events/events-page.js';
import { InboxPage } from '../inbox/inbox-page.js';
import { live, startLive } from '../live/live-state.js';
import { LogsPage } from '../logs/logs-page.js';
import { MetricsPage } from '../metrics/metrics-page.js';
import { PromptPage } from '../prompts/prompt-page.js';
import { PromptsPage } from '../prompts/prompts-page.js';
import { ResourcesPage } from '../resources/resources-page.js';
import { ServersPage } from '../servers/servers-page.js';
import { ToolPage } from '../tools/tool-page.js';
import { ToolsPage } from '../tools/tools-page.js';
import { AppContext } from './app-context.js';
import { ErrorBanner } from './error-banner.js';
import { Header } from './header.js';
import { Nav } from './nav.js';
import type { Route } from './routes.js';
import { TokenForm } from './token-form.js';
import { useRoute } from './use-route.js';

type Boot =
  | { readonly state: 'loading' }
  | { readonly state: 'ready'; readonly session: ApiSession }
  | { readonly state: 'token'; readonly rejected: boolean; readonly hint: string }
  | { readonly state: 'failed'; readonly error: unknown };

/**
 * The dashboard: opens the API session (asking for a token when the gateway wants one),
 * follows the live stream, and shows the page the hash names.
 */
export function App(props: { readonly client: ApiClient }) {
  const { client } = props;
  const route = useRoute();
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(
    () =>
      client.onUnauthorized((hint) => {
        setBoot({ state: 'token', rejected: client.hasToken, hint });
        live.set((s) => ({ ...s, status: { state: 'unauthorized' } }));
      }),
    [client],
  );

  useEffect(() => {
    let current = true;
    client.session({ refresh: true }).then(
      (session) => current && setBoot({ state: 'ready', session }),
      (error: unknown) => {
        if (current && (error as { status?: number }).status !== 401) setBoot({ state: 'failed', error });
      },
    );
    return () => {
      current = false;
    };
  }, [client, attempt]);

  const ready = boot.state === 'ready';
  useEffect(() => (ready ? startLive(client) : undefined), [client, ready]);

  useFocusOnRouteChange(route);

  const session = boot.state === 'ready' ? boot.session : undefined;
  return (
    <>
      <button type="button" class="skip-link" onClick={skipToMain}>
        Skip to content
      </button>
      <Header {...(session && { principal: session.principal, version: session.version })} />
      <Nav current={route.page} />
      <main id="main" tabIndex={-1}>
        {boot.state === 'loading' && <p class="muted">Loading…</p>}
        {boot.state === 'failed' && (
          <>
            <ErrorBanner error={boot.error} />
            <button type="button" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </button>
          </>
        )}
        {boot.state === 'token' && (
          <TokenForm
            rejected={boot.rejected}
            hint={boot.hint}
            onToken={(token) => {
              client.setToken(token);
              setBoot({ state: 'loading' });
              setAttempt((n) => n + 1);
            }}
          />
        )}
        {session && (
          <AppContext.Provider value={{ client, session }}>
            <RoutePage route={route} />
          </AppContext.Provider>
        )}
      </main>
    </>
  );
}

function RoutePage(props: { readonly route: Route }) {
  const { route } = props;
  switch (route.page) {
    case 'servers':
      return <ServersPage />;
    case 'tools':
      return route.tool ? <ToolPage key={route.tool} name={route.tool} /> : <ToolsPage />;
    case 'apps':
      return <AppsPage />;
    case 'resources':
      return <ResourcesPage />;
    case 'prompts':
      return route.server && route.prompt ? (
        <PromptPage key={`${route.server}/${route.prompt}`} server={route.server} name={route.prompt} />
      ) : (
        <PromptsPage />
      );
    case 'inbox':
      return <InboxPage />;
    case 'logs':
      return <LogsPage key={route.server ?? ''} {...(route.server && { server: route.server })} />;
    case 'metrics':
      return <MetricsPage />;
    case 'events':
      return <EventsPage />;
    case 'audit':
      return <AuditPage />;
  }
}

/** After a navigation, focus goes to the new page's heading, as a page load would put it. */
function useFocusOnRouteChange(route: Route): void {
  const first = useRef(true);
  const key = JSON.stringify(route);
  // Runs when the route (its key) changes.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>('main h1');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [key]);
}

// The hash holds the route, so "skip to content" moves focus itself rather than linking to #main.
function skipToMain() {
  document.getElementById('main')?.focus();
}
