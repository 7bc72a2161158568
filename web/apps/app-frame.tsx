import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiAppView, ApiResultApp } from '../../src/gateway/api/api-types.js';
import { useApp } from '../shell/app-context.js';
import { sandboxFrame } from './sandbox-url.js';

/**
 * A tool result rendered in its MCP App view, through the official host bridge (`AppBridge`
 * of `@modelcontextprotocol/ext-apps`) and the sandbox proxy (sandbox-proxy.ts): the view is
 * fetched with its CSP from the API, loaded into the proxy's inner frame when the proxy is
 * ready, sent the call's input and result once it has initialized, resized as it asks, and
 * torn down (`ui/resource-teardown`) when the component goes. Its `tools/call`s go to
 * `POST /api/apps/call`, which reaches only its own server's app-visible tools under policy
 * and audit; nothing else it asks of the host is granted.
 */
export function AppFrame(props: { readonly app: ApiResultApp }) {
  const { app } = props;
  const { client } = useApp();
  const frame = useRef<HTMLIFrameElement>(null);
  const [view, setView] = useState<ApiAppView | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [state, setState] = useState<'loading' | 'ready' | 'closed'>('loading');

  useEffect(() => {
    const query = new URLSearchParams({ server: app.server, uri: app.resourceUri });
    let live = true;
    client.get<ApiAppView>(`/api/apps/view?${query}`).then(
      (v) => live && setView(v),
      (error: unknown) => live && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, [client, app.server, app.resourceUri]);

  useEffect(() => {
    const iframe = frame.current;
    if (!view || !iframe) return;
    const target = sandboxFrame(window.location, view);
    const bridge = new AppBridge(
      null,
      { name: 'Switchboard', version: '1' },
      { serverTools: {}, logging: {} },
      {
        hostContext: {
          theme: 'light',
          displayMode: 'inline',
          platform: 'web',
          containerDimensions: { maxHeight: 900 },
        },
      },
    );
    bridge.oncalltool = (params) =>
      client.post('/api/apps/call', {
        server: app.server,
        name: params.name,
        arguments: params.arguments ?? {},
      });
    bridge.addEventListener('sandboxready', () => {
      void bridge.sendSandboxResourceReady({
        html: view.html,
        ...(view.allow && { permissions: permissionsOf(view.allow) }),
      });
    });
    bridge.addEventListener('initialized', () => {
      setState('ready');
      void bridge.sendToolInput({ arguments: { ...app.input } });
      void bridge.sendToolResult(app.result as Parameters<AppBridge['sendToolResult']>[0]);
    });
    bridge.addEventListener('sizechange', ({ height }) => {
      if (height !== undefined) iframe.style.height = `${Math.min(Math.max(height, 40), 900)}px`;
    });
    bridge.addEventListener('requestteardown', () => setState('closed'));
    // Only the proxy's window may speak to the bridge: the transport checks each message's source.
    let connected = false;
    void (async () => {
      await bridge.connect(
        new PostMessageTransport(iframe.contentWindow ?? undefined, iframe.contentWindow!),
      );
      connected = true;
      iframe.setAttribute('sandbox', target.sandbox);
      iframe.src = target.src;
    })().catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
    return () => {
      // Teardown first (the view may save its state), bounded, then the bridge and the frame.
      const done = connected
        ? bridge.teardownResource({}, { timeout: 1_000 }).catch(() => undefined)
        : Promise.resolve();
      void done.finally(() => void bridge.close().catch(() => undefined));
    };
  }, [client, view, app]);

  if (problem)
    return (
      <p class="error" role="alert">
        The app could not be shown: {problem}
      </p>
    );
  if (state === 'closed') return <p class="muted">The app closed itself.</p>;
  return (
    <figure
      class={view?.prefersBorder === false ? 'app-view app-view-bare' : 'app-view'}
      aria-busy={state !== 'ready'}
    >
      <iframe ref={frame} title={`App of ${app.tool}`} class="app-frame" data-app={app.resourceUri} />
      <figcaption class="muted">
        App <code>{app.resourceUri}</code> of server <strong>{app.server}</strong>, sandboxed{' '}
        {view && <OriginNote view={view} />}
      </figcaption>
    </figure>
  );
}

/** The permissions an `allow` attribute grants, as the sandbox-resource-ready notification names them. */
function permissionsOf(allow: string): Record<string, object> {
  const names: Record<string, string> = {
    camera: 'camera',
    microphone: 'microphone',
    geolocation: 'geolocation',
    'clipboard-write': 'clipboardWrite',
  };
  const out: Record<string, object> = {};
  for (const feature of allow.split(';').map((f) => f.trim())) {
    const name = names[feature];
    if (name) out[name] = {};
  }
  return out;
}

/** Where the view runs, and what became of a domain it declared (said, never silently dropped). */
function OriginNote(props: { readonly view: ApiAppView }) {
  const { view } = props;
  const target = sandboxFrame(window.location, view);
  return (
    <>
      {target.origin === 'null' ? (
        <span data-testid="app-origin" data-origin="null">
          in an opaque origin without storage (open the dashboard on localhost for each server's views to get
          an origin of their own)
        </span>
      ) : (
        <span data-testid="app-origin" data-origin={target.origin}>
          at <code>{target.origin}</code>, the origin of this server's views
        </span>
      )}
      {view.domainNotice !== undefined && (
        <span data-testid="app-domain" data-honoured={String(view.domainHonoured === true)}>
          . {view.domainNotice}
        </span>
      )}
    </>
  );
}
