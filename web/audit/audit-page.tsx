import { useEffect, useId, useState } from 'preact/hooks';
import type { ApiAuditEntry, ApiPage } from '../../src/gateway/api/api-types.js';
import type { Query } from '../api/api-client.js';
import { compactJson } from '../results/compact-json.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';

const PAGE_SIZE = 50;

interface Filters {
  readonly server: string;
  readonly actor: string;
  readonly action: string;
  readonly outcome: string;
  /** `datetime-local` values (local time, no zone), sent as ISO-8601. */
  readonly since: string;
  readonly until: string;
}

const NO_FILTERS: Filters = { server: '', actor: '', action: '', outcome: '', since: '', until: '' };

const FIELDS: readonly {
  readonly key: keyof Filters;
  readonly label: string;
  readonly type: 'text' | 'datetime-local';
}[] = [
  { key: 'server', label: 'Server', type: 'text' },
  { key: 'actor', label: 'Actor', type: 'text' },
  { key: 'action', label: 'Action', type: 'text' },
  { key: 'outcome', label: 'Outcome', type: 'text' },
  { key: 'since', label: 'Since', type: 'datetime-local' },
  { key: 'until', label: 'Until', type: 'datetime-local' },
];

/** The audit log, newest first, filtered, with "Load more" for older entries. */
export function AuditPage() {
  const { client } = useApp();
  const id = useId();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [entries, setEntries] = useState<readonly ApiAuditEntry[]>([]);
  const [next, setNext] = useState<number>();
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);

  const load = async (filters: Filters, before?: number) => {
    setBusy(true);
    setError(undefined);
    try {
      const page = await client.get<ApiPage<ApiAuditEntry>>('/api/audit', {
        ...toQuery(filters),
        before,
        limit: PAGE_SIZE,
      });
      setEntries((old) => (before === undefined ? page.items : [...old, ...page.items]));
      setNext(page.nextCursor);
      setApplied(filters);
      setLoaded(true);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  // The first page once, when the page opens.
  useEffect(() => {
    void load(NO_FILTERS);
  }, []);

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <form
        class="panel filters"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          void load(draft);
        }}
      >
        {FIELDS.map((field) => (
          <div class="field" key={field.key}>
            <label for={`${id}-${field.key}`}>{field.label}</label>
            <input
              id={`${id}-${field.key}`}
              // Preact types each input type separately; 'text' stands for both used here.
              type={field.type as 'text'}
              value={draft[field.key]}
              onInput={(e) => setDraft({ ...draft, [field.key]: e.currentTarget.value })}
            />
          </div>
        ))}
        <div class="actions">
          <button type="submit" class="button-primary" disabled={busy}>
            Apply filters
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setDraft(NO_FILTERS);
              void load(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorBanner error={error} />
      <div class="table-wrap">
        <table class="table" data-testid="audit-table">
          <caption class="sr-only">Audit entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Server</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Outcome</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} class={entry.outcome ? `outcome-${entry.outcome}` : undefined}>
                <td>
                  <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time>
                </td>
                <td>{entry.server ?? '—'}</td>
                <td>{entry.actor ?? '—'}</td>
                <td>
                  <code>{entry.action}</code>
                </td>
                <td>{entry.outcome ?? '—'}</td>
                <td>
                  <code class="json-cell">{compactJson(entry.details)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && entries.length === 0 && <p class="muted">No audit entries match.</p>}
      <div class="actions pager">
        <button type="button" disabled={busy || next === undefined} onClick={() => void load(applied, next)}>
          Load more
        </button>
      </div>
    </section>
  );
}

function toQuery(filters: Filters): Query {
  return {
    server: filters.server.trim(),
    actor: filters.actor.trim(),
    action: filters.action.trim(),
    outcome: filters.outcome.trim(),
    since: isoOf(filters.since),
    until: isoOf(filters.until),
  };
}

function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
