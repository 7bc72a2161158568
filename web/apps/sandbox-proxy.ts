/**
 * The MCP Apps sandbox proxy (SEP-1865 §Sandbox proxy): the page the dashboard frames under
 * another origin, which holds the view in an inner frame and relays messages both ways.
 *
 * - On its server's own origin (`app-<hex>.localhost`, sandbox-url.ts) the view's frame is
 *   `sandbox="allow-scripts allow-same-origin"`: the view runs at that origin, with the
 *   storage of its server's views and no one else's; it shares the origin with this page,
 *   whose only power is to relay its messages, and whose policy it cannot change (the page is
 *   served only with the token the API issued for this CSP). Anywhere else (the dashboard's
 *   own origin, sandboxed opaque) the frame is `allow-scripts` alone: an opaque origin, no
 *   storage, no cookies. Never more, whatever the host asks.
 * - Its document is a `srcdoc`, which runs under this page's Content-Security-Policy (the
 *   gateway builds it from the view's declared origins, ui-handler.ts) and under the same
 *   policy again in a `<meta>` put first in its head.
 * - Only the dashboard's origin (the `host` parameter, which the page's `frame-ancestors`
 *   also names) may send here; only the view's frame may answer; `ui/notifications/sandbox-*`
 *   messages are this proxy's own and are never relayed (§Sandbox proxy, rule 6).
 *
 * Not a protocol of its own: it forwards the JSON-RPC messages the official AppBridge (in the
 * dashboard) and App (in the view) exchange, untouched.
 */
const params = new URLSearchParams(location.search);
const hostOrigin = params.get('host') ?? '';
const csp = params.get('csp') ?? '';
const SANDBOX_PREFIX = 'ui/notifications/sandbox-';
const PERMISSIONS: Record<string, string> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};

/** Whether this page runs at a server's own sandbox origin (else at an opaque one). */
const ownOrigin = /^app-[0-9a-f]{16}\.localhost$/.test(location.hostname);

let inner: HTMLIFrameElement | undefined;

function methodOf(data: unknown): string | undefined {
  return typeof data === 'object' &&
    data !== null &&
    typeof (data as { method?: unknown }).method === 'string'
    ? (data as { method: string }).method
    : undefined;
}

/** The view's document with the policy first in its head, before anything of its own runs. */
function withPolicy(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replaceAll('"', '&quot;')}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}

function load(html: string, permissions: Record<string, unknown> | undefined): void {
  inner?.remove();
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', ownOrigin ? 'allow-scripts allow-same-origin' : 'allow-scripts');
  const allow = Object.keys(permissions ?? {})
    .map((p) => PERMISSIONS[p])
    .filter(Boolean)
    .join('; ');
  if (allow) frame.setAttribute('allow', allow);
  frame.srcdoc = withPolicy(html);
  inner = frame;
  document.body.append(frame);
}

window.addEventListener('message', (event) => {
  const method = methodOf(event.data);
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (method === `${SANDBOX_PREFIX}resource-ready`) {
      const p = (event.data as { params?: { html?: unknown; permissions?: Record<string, unknown> } }).params;
      if (typeof p?.html === 'string') load(p.html, p.permissions);
      return;
    }
    inner?.contentWindow?.postMessage(event.data, '*');
    return;
  }
  if (inner && event.source === inner.contentWindow) {
    if (method?.startsWith(SANDBOX_PREFIX)) return;
    window.parent.postMessage(event.data, hostOrigin);
  }
});

if (hostOrigin !== '') {
  window.parent.postMessage(
    { jsonrpc: '2.0', method: `${SANDBOX_PREFIX}proxy-ready`, params: {} },
    hostOrigin,
  );
}
