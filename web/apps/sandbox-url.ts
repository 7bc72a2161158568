/**
 * Where the dashboard frames an MCP App's sandbox proxy. Opened on a loopback name, at the
 * view's own origin: its server's domain under `.localhost` (the API's `sandbox.domain`,
 * derived from the server's name) on the gateway's port — another origin than the
 * dashboard's and than any other server's views, the same on every run, with storage of its
 * own (SEP-1865 §Sandbox proxy, rules 1–2; `_meta.ui.domain`). Opened under any other name
 * there is no such origin to use (a `.localhost` name means the browser's own machine, which
 * may not be the gateway's): the proxy is framed from the dashboard's origin and sandboxed
 * without `allow-same-origin`, an opaque origin with no storage at all. Pure.
 */
export interface SandboxFrame {
  /** The proxy page, with the dashboard's origin, the view's CSP and its token in its query. */
  readonly src: string;
  /** The proxy frame's `sandbox` attribute. */
  readonly sandbox: string;
  /** The origin the proxy's messages come from (`null` for an opaque one). */
  readonly origin: string;
}

/** What of the API's view the frame needs. */
export interface SandboxedView {
  readonly csp: string;
  readonly sandbox: { readonly domain: string; readonly token: string };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function sandboxFrame(
  location: {
    readonly origin: string;
    readonly protocol: string;
    readonly hostname: string;
    readonly port: string;
  },
  view: SandboxedView,
): SandboxFrame {
  const own = LOOPBACK.has(location.hostname);
  const base = own
    ? `${location.protocol}//${view.sandbox.domain}${location.port ? `:${location.port}` : ''}`
    : location.origin;
  const query = new URLSearchParams({ host: location.origin, csp: view.csp, sig: view.sandbox.token });
  return {
    src: `${base}/ui/sandbox.html?${query}`,
    sandbox: own ? 'allow-scripts allow-same-origin' : 'allow-scripts',
    origin: own ? base : 'null',
  };
}
