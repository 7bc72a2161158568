import { useId, useState } from 'preact/hooks';
import type { ApiEvent, ApiPage, ApiServer } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { compactJson } from '../results/compact-json.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';

const PAGE_SIZE = 50;

/**
 * Notifications servers sent (other than the ones Switchboard acts on), newest first, a page
 * at a time. On the first page, events that arrive while it is open are added on top.
 */
export function EventsPage() {
  const { client } = useApp();
  const state = useStore(live);
  const filterId = useId();
  const [server, setServer] = useState('');
  // The cursors of the pages before this one: "Newer" pops, "Older" pushes.
  const [cursors, setCursors] = useState<readonly (number | undefined)[]>([]);
  const before = cursors.length > 0 ? cursors[cursors.length - 1] : undefined;
  const page = useAsync(
    () => client.get<ApiPage<ApiEvent>>('/api/events', { server, before, limit: PAGE_SIZE }),
    [client, server, before],
  );
  const servers = useAsync(
    () =>
      state.servers
        ? Promise.resolve({ servers: state.servers })
        : client.get<{ servers: ApiServer[] }>('/api/servers'),
    [client, state.servers === undefined],
  );
  const items = page.data?.items ?? [];
  const newest = items[0]?.id ?? 0;
  const fresh =
    cursors.length === 0 && page.data
      ? state.events.filter((e) => e.id > newest && (server === '' || e.server === server))
      : [];
  const rows = [...fresh, ...items];

  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <div class="toolbar">
        <label for={filterId}>Server</label>
        <select
          id={filterId}
          value={server}
          onChange={(e) => {
            setServer(e.currentTarget.value);
            setCursors([]);
          }}
        >
          <option value="">All servers</option>
          {(servers.data?.servers ?? []).map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <ErrorBanner error={page.error} />
      <div class="table-wrap">
        <table class="table" data-testid="events-table">
          <caption class="sr-only">Server events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Server</th>
              <th scope="col">Method</th>
              <th scope="col">Params</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td>
                  <time dateTime={event.receivedAt}>{new Date(event.receivedAt).toLocaleString()}</time>
                </td>
                <td>{event.server}</td>
                <td>
                  <code>{event.method}</code>
                </td>
                <td>
                  <code class="json-cell">{compactJson(event.params)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.data && rows.length === 0 && <p class="muted">No events{server ? ` from ${server}` : ''}.</p>}
      <div class="actions pager">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={page.data?.nextCursor === undefined}
          onClick={() => setCursors([...cursors, page.data?.nextCursor])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
