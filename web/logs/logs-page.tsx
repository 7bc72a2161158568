import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ApiLogLine, ApiServer } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { followStream } from '../live/event-stream.js';
import { live } from '../live/live-state.js';
import type { StreamStatus } from '../live/stream-status.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';
import { LogLines } from './log-lines.js';

const TAIL_LINES = 200;
/** Lines kept on the page while following; older ones scroll away. */
const MAX_LINES = 2000;

/** A server's log: the last lines, and "Follow" to see new ones as they are written. */
export function LogsPage(props: { readonly server?: string }) {
  const { client } = useApp();
  const { servers } = useStore(live);
  const pickerId = useId();
  const known = useAsync(
    () => (servers ? Promise.resolve(undefined) : client.get<{ servers: ApiServer[] }>('/api/servers')),
    [client, servers === undefined],
  );
  const names = (servers ?? known.data?.servers ?? []).map((s) => s.name).sort();

  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Logs{props.server ? ` of ${props.server}` : ''}</h1>
      <div class="toolbar">
        <label for={pickerId}>Server</label>
        <select
          id={pickerId}
          value={props.server ?? ''}
          onChange={(e) => {
            const server = e.currentTarget.value;
            location.hash = routeHref(server ? { page: 'logs', server } : { page: 'logs' });
          }}
        >
          <option value="">Choose a server…</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {props.server ? (
        <ServerLog server={props.server} />
      ) : (
        <p class="muted">Choose a server to read its log.</p>
      )}
    </section>
  );
}

function ServerLog(props: { readonly server: string }) {
  const { client } = useApp();
  const path = `/api/logs/${segment(props.server)}`;
  const tail = useAsync(
    () => client.get<{ file: string; lines: ApiLogLine[] }>(path, { lines: TAIL_LINES }),
    [client, path],
  );
  const [following, setFollowing] = useState(false);
  const [lines, setLines] = useState<readonly ApiLogLine[]>([]);
  const [status, setStatus] = useState<StreamStatus>();

  useEffect(() => {
    if (tail.data) setLines(tail.data.lines);
  }, [tail.data]);

  useEffect(() => {
    if (!following) return undefined;
    return followStream(client, `${path}/follow?lines=${TAIL_LINES}`, {
      onStatus: setStatus,
      // The follow stream starts with the last lines itself, so it replaces what is shown.
      onOpen: () => setLines([]),
      onMessage: (message) => {
        if (message.event !== 'log') return;
        let line: ApiLogLine;
        try {
          line = JSON.parse(message.data) as ApiLogLine;
        } catch {
          return;
        }
        setLines((old) => [...old, line].slice(-MAX_LINES));
      },
    });
  }, [client, path, following]);

  const list = useRef<HTMLElement>(null);
  const stuck = useRef(true);
  useLayoutEffect(() => {
    const box = list.current;
    if (box && stuck.current) box.scrollTop = box.scrollHeight;
  }, [lines]);

  return (
    <>
      <div class="toolbar">
        <button type="button" aria-pressed={following} onClick={() => setFollowing(!following)}>
          Follow
        </button>
        <button type="button" onClick={tail.reload} disabled={following}>
          Refresh
        </button>
        <span class="muted" role="status" data-testid="log-status">
          {following ? followText(status) : tail.data ? `${tail.data.file}` : ''}
        </span>
      </div>
      <ErrorBanner error={tail.error} />
      <section
        class="log-box"
        ref={list}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled.
        tabIndex={0}
        aria-label={`Log lines of ${props.server}`}
        onScroll={(e) => {
          const box = e.currentTarget;
          stuck.current = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
        }}
      >
        {tail.loading && !tail.data && <p class="muted">Loading…</p>}
        {tail.data && lines.length === 0 && <p class="muted">The log is empty.</p>}
        <LogLines lines={lines} />
      </section>
    </>
  );
}

function followText(status: StreamStatus | undefined): string {
  switch (status?.state) {
    case 'open':
      return 'Following new lines.';
    case 'retrying':
      return `Disconnected (${status.error}); retrying…`;
    case 'unauthorized':
      return 'A token is needed.';
    default:
      return 'Connecting…';
  }
}
