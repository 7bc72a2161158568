import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { dropServer, replaceServer } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useAction } from '../shell/use-action.js';
import { EntryEditor } from './entry-editor.js';
import { ReplicaStates } from './replica-states.js';
import { shortSource } from './short-source.js';
import { StateBadge } from './state-badge.js';

/** One server: state, protocol, what it offers, what went wrong, and what can be done. */
export function ServerCard(props: {
  readonly server: ApiServer;
  readonly canManage: boolean;
  /** Shown under the facts: the server's recent-calls charts. */
  readonly children?: ComponentChildren;
}) {
  const { server } = props;
  const { client } = useApp();
  const { busy, error, run: act } = useAction();
  const [editing, setEditing] = useState(false);
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const path = `/api/servers/${segment(server.name)}`;

  const post = (verb: 'enable' | 'disable' | 'reload') =>
    act(async () => replaceServer(await client.post<ApiServer>(`${path}/${verb}`)));
  const titleId = `server-${server.name}-title`;

  return (
    <article
      class="card server-card"
      aria-labelledby={titleId}
      data-testid={`server-${server.name}`}
      data-state={server.state}
    >
      <header class="card-header">
        <h2 id={titleId}>{server.name}</h2>
        <StateBadge name={server.name} state={server.state} />
      </header>
      {server.description && <p class="server-description">{server.description}</p>}
      <dl class="facts">
        <div>
          <dt>Transport</dt>
          <dd>{server.transport}</dd>
        </div>
        {server.sandbox !== undefined && (
          <div>
            <dt>Sandbox</dt>
            <dd data-testid={`server-sandbox-${server.name}`}>{server.sandbox}</dd>
          </div>
        )}
        <div>
          <dt>Protocol</dt>
          <dd data-testid={`server-protocol-${server.name}`}>{server.protocolVersion ?? '—'}</dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>{server.tools}</dd>
        </div>
        <div>
          <dt>Resources</dt>
          <dd>{server.resources}</dd>
        </div>
        <div>
          <dt>Prompts</dt>
          <dd>{server.prompts}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd title={server.source}>{shortSource(server.source)}</dd>
        </div>
      </dl>
      {props.children}
      {server.error && (
        <p class="server-error" data-testid={`server-error-${server.name}`}>
          <strong>{server.error.code}</strong>: {server.error.message}
        </p>
      )}
      {server.hint && <p class="server-hint">{server.hint}</p>}
      <ReplicaStates server={server} />
      {server.rejectedTools.length > 0 && (
        <details class="rejected">
          <summary>
            {server.rejectedTools.length} {server.rejectedTools.length === 1 ? 'tool' : 'tools'} not offered
          </summary>
          <ul>
            {server.rejectedTools.map((r) => (
              <li key={r.tool}>
                <code>{r.tool}</code>: {r.reason} — {r.detail}
              </li>
            ))}
          </ul>
        </details>
      )}
      <ErrorBanner error={error} />
      <div class="actions">
        <a
          class="button"
          href={routeHref({ page: 'logs', server: server.name })}
          aria-label={`Logs of ${server.name}`}
        >
          Logs
        </a>
        {props.canManage && (
          <>
            <button
              type="button"
              disabled={busy}
              aria-label={`${server.enabled ? 'Disable' : 'Enable'} ${server.name}`}
              onClick={() => post(server.enabled ? 'disable' : 'enable')}
            >
              {server.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              disabled={busy || !server.enabled}
              aria-label={`Reload ${server.name}`}
              onClick={() => post('reload')}
            >
              Reload
            </button>
            {server.editable && (
              <>
                <button
                  type="button"
                  disabled={busy}
                  aria-label={`Edit ${server.name}`}
                  aria-expanded={editing}
                  onClick={() => setEditing(!editing)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="button-danger"
                  disabled={busy}
                  aria-label={`Remove ${server.name}`}
                  onClick={() => setConfirmingRemove(true)}
                >
                  Remove
                </button>
              </>
            )}
          </>
        )}
      </div>
      {confirmingRemove && (
        <fieldset class="confirm">
          <legend>
            Remove <strong>{server.name}</strong>? Its process is stopped and its entry deleted.
          </legend>
          <button
            type="button"
            class="button-danger"
            disabled={busy}
            onClick={() =>
              act(async () => {
                await client.delete(path);
                dropServer(server.name);
              })
            }
          >
            Yes, remove {server.name}
          </button>
          <button type="button" onClick={() => setConfirmingRemove(false)}>
            Cancel
          </button>
        </fieldset>
      )}
      {editing && <EntryEditor name={server.name} onDone={() => setEditing(false)} />}
    </article>
  );
}
