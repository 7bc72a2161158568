import { useId, useState } from 'preact/hooks';
import type { ApiServer } from '../../src/gateway/api/api-types.js';
import { replaceServer } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useAction } from '../shell/use-action.js';
import { parseEntryJson } from './entry-json.js';

type Kind = 'command' | 'url' | 'json';

/**
 * Adds a server (`POST /api/servers`): a local command with its arguments (one per line, so
 * spaces inside an argument need no quoting), a remote URL, or a whole entry as JSON.
 */
export function AddServerForm(props: { readonly onDone: () => void }) {
  const { client } = useApp();
  const id = useId();
  const [kind, setKind] = useState<Kind>('command');
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [url, setUrl] = useState('');
  const [json, setJson] = useState('{\n  "command": "npx",\n  "args": []\n}');
  const { busy, error, run } = useAction();

  const entry = (): unknown => {
    if (kind === 'command') {
      const list = args.split('\n').filter((line) => line.trim() !== '');
      return { command: command.trim(), ...(list.length > 0 && { args: list }) };
    }
    if (kind === 'url') return { url: url.trim() };
    return parseEntryJson(json);
  };

  const submit = () =>
    run(async () => {
      if (!name.trim()) throw new Error('Give the server a name (letters, digits, "-" and "_").');
      replaceServer(await client.post<ApiServer>('/api/servers', { name: name.trim(), entry: entry() }));
      props.onDone();
    });

  return (
    <form
      class="panel add-server"
      aria-label="Add server"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h2>Add a server</h2>
      <div class="field">
        <label for={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <fieldset class="field-group">
        <legend>Kind</legend>
        {(
          [
            ['command', 'Local command (stdio)'],
            ['url', 'Remote URL (HTTP)'],
            ['json', 'Raw JSON entry'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} class="check">
            <input
              type="radio"
              name={`${id}-kind`}
              checked={kind === value}
              onChange={() => setKind(value)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {kind === 'command' && (
        <>
          <div class="field">
            <label for={`${id}-command`}>Command</label>
            <input
              id={`${id}-command`}
              placeholder="npx"
              value={command}
              onInput={(e) => setCommand(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for={`${id}-args`}>Arguments, one per line</label>
            <textarea
              id={`${id}-args`}
              class="code"
              rows={4}
              value={args}
              onInput={(e) => setArgs(e.currentTarget.value)}
            />
          </div>
        </>
      )}
      {kind === 'url' && (
        <div class="field">
          <label for={`${id}-url`}>URL</label>
          <input
            id={`${id}-url`}
            type="url"
            placeholder="https://example.com/mcp"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </div>
      )}
      {kind === 'json' && (
        <div class="field">
          <label for={`${id}-json`}>Entry (JSON, as in switchboard.json)</label>
          <textarea
            id={`${id}-json`}
            class="code"
            rows={8}
            spellcheck={false}
            value={json}
            onInput={(e) => setJson(e.currentTarget.value)}
          />
        </div>
      )}
      <ErrorBanner error={error} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy}>
          Add
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
