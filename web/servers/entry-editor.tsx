import { useId, useState } from 'preact/hooks';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { replaceServer } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useAction } from '../shell/use-action.js';
import { useAsync } from '../state/use-async.js';
import { parseEntryJson } from './entry-json.js';

/** The server's configuration entry as JSON, to change and save (`PUT /api/servers/{name}`). */
export function EntryEditor(props: { readonly name: string; readonly onDone: () => void }) {
  const { client } = useApp();
  const id = useId();
  const path = `/api/servers/${segment(props.name)}`;
  const loaded = useAsync(() => client.get<ApiServer & { entry: unknown }>(path), [client, path]);
  const [text, setText] = useState<string>();
  const { busy, error, run } = useAction();
  const shown = text ?? (loaded.data ? JSON.stringify(loaded.data.entry, null, 2) : '');

  const save = () =>
    run(async () => {
      const entry = parseEntryJson(shown);
      replaceServer(await client.put<ApiServer>(path, { entry }));
      props.onDone();
    });

  return (
    <form
      class="panel entry-editor"
      aria-label={`Edit ${props.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <ErrorBanner error={loaded.error} />
      <label for={id}>Entry of {props.name} (JSON, as in switchboard.json)</label>
      <textarea
        id={id}
        class="code"
        rows={10}
        spellcheck={false}
        value={shown}
        disabled={!loaded.data}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <ErrorBanner error={error} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy || !loaded.data}>
          Save
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
