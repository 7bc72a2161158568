import { useLayoutEffect, useRef } from 'preact/hooks';
import type { ApiTool } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { AppFrame } from '../apps/app-frame.js';
import { SchemaFormView } from '../forms/schema-form-view.js';
import { useSchemaForm } from '../forms/use-schema-form.js';
import { CallResult } from '../results/call-result.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';
import { CallStatus } from './call-status.js';
import { calls, callTool, cancelCall } from './calls.js';

/** One tool: what it does, its annotations, a form generated from its input schema, and Run. */
export function ToolPage(props: { readonly name: string }) {
  const { client } = useApp();
  const tool = useAsync(() => client.get<ApiTool>(`/api/tools/${segment(props.name)}`), [client, props.name]);
  return (
    <section aria-labelledby="tool-title">
      <p class="breadcrumb">
        <a href={routeHref({ page: 'tools' })}>Tools</a>
        {tool.data && <> / {tool.data.server}</>}
      </p>
      <h1 id="tool-title">{tool.data ? (tool.data.title ?? tool.data.tool) : props.name}</h1>
      <ErrorBanner error={tool.error} />
      {tool.loading && !tool.data && <p class="muted">Loading the tool…</p>}
      {tool.data && <ToolDetails tool={tool.data} />}
    </section>
  );
}

function ToolDetails(props: { readonly tool: ApiTool }) {
  const { tool } = props;
  const { client } = useApp();
  const form = useSchemaForm(tool.inputSchema);
  const call = useStore(calls)[tool.name];
  const running = call?.running === true;
  const runButton = useRef<HTMLButtonElement>(null);
  const cancelled = useRef(false);

  // Cancel disappears once the call has ended; focus, lost with it, goes back to Run (in the
  // same commit, so nothing sees the page without a focused control in between).
  useLayoutEffect(() => {
    if (running || !cancelled.current) return;
    cancelled.current = false;
    if (document.activeElement === document.body) runButton.current?.focus();
  }, [running]);

  const run = () => {
    const args = form.collect();
    if (args) void callTool(client, tool.name, args);
  };

  return (
    <>
      <p class="tool-meta">
        <code>{tool.name}</code> on server <strong>{tool.server}</strong>
      </p>
      {tool.description && <p class="tool-description-full">{tool.description}</p>}
      <Annotations annotations={tool.annotations} />
      <form
        class="panel"
        aria-label={`Arguments of ${tool.tool}`}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) run();
        }}
      >
        <SchemaFormView form={form} />
        <div class="actions">
          <button ref={runButton} type="submit" class="button-primary" disabled={running}>
            Run
          </button>
          {running && (
            <button
              type="button"
              onClick={() => {
                cancelled.current = true;
                cancelCall(tool.name);
              }}
            >
              Cancel
            </button>
          )}
        </div>
      </form>
      <CallStatus running={running} cancelled={call?.cancelled} server={tool.server} tool={tool.tool} />
      {call && !call.running && <ErrorBanner error={call.error} />}
      {call?.result && !call.running && <CallResult result={call.result} />}
      {call?.result?.app && !call.running && <AppFrame key={call.result.ms} app={call.result.app} />}
    </>
  );
}

const HINTS: readonly [key: string, label: string][] = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
];

/** The tool's annotations (MCP "ToolAnnotations": hints, not guarantees) as labelled chips. */
function Annotations(props: { readonly annotations?: Readonly<Record<string, unknown>> }) {
  const { annotations } = props;
  if (!annotations) return null;
  const chips = HINTS.filter(([key]) => typeof annotations[key] === 'boolean').map(([key, label]) => (
    <li key={key} class={annotations[key] ? 'chip chip-on' : 'chip'}>
      {annotations[key] ? label : `not ${label}`}
    </li>
  ));
  if (chips.length === 0) return null;
  return (
    <ul class="chips" aria-label="Annotations (hints from the server)">
      {chips}
    </ul>
  );
}
