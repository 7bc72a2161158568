import { useState } from 'preact/hooks';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { CallCharts } from '../metrics/call-charts.js';
import { useCallStats } from '../metrics/use-call-stats.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';
import { AddServerForm } from './add-server-form.js';
import { ServerCard } from './server-card.js';

/** Every server with its live state; adding, changing and removing for those who may manage. */
export function ServersPage() {
  const { client, session } = useApp();
  const { servers } = useStore(live);
  const fallback = useAsync(
    () => (servers ? Promise.resolve(undefined) : client.get<{ servers: ApiServer[] }>('/api/servers')),
    [client, servers === undefined],
  );
  const [adding, setAdding] = useState(false);
  // One poll for every card's charts.
  const calls = useCallStats();
  const callsOf = new Map(calls.stats?.servers.map((s) => [s.server, s]));
  const list = [...(servers ?? fallback.data?.servers ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section aria-labelledby="servers-title">
      <div class="page-header">
        <h1 id="servers-title">Servers</h1>
        {session.canManage && !adding && (
          <button type="button" class="button-primary" onClick={() => setAdding(true)}>
            Add server
          </button>
        )}
      </div>
      {adding && <AddServerForm onDone={() => setAdding(false)} />}
      <ErrorBanner error={fallback.error} />
      {!servers && fallback.loading && <p class="muted">Loading servers…</p>}
      {list.length === 0 && (servers || fallback.data) && (
        <p class="muted">No servers are configured. Add one, or list them in switchboard.json.</p>
      )}
      <ul class="server-list">
        {list.map((server) => (
          <li key={server.name}>
            <ServerCard server={server} canManage={session.canManage}>
              <CallCharts
                server={server.name}
                stats={callsOf.get(server.name)}
                slotSeconds={calls.stats?.slotSeconds ?? 5}
              />
            </ServerCard>
          </li>
        ))}
      </ul>
    </section>
  );
}
