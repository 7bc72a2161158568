/**
 * Where the dashboard frames an MCP App's sandbox proxy: the same gateway under the other
 * loopback name (`127.0.0.1` ↔ `localhost`), which is another origin — the proxy may then have
 * `allow-same-origin` without sharing anything with the dashboard (SEP-1865 §Sandbox proxy,
 * rules 1–2). Opened under any other name, there is no second origin to use: the proxy is
 * framed from the dashboard's own and sandboxed without `allow-same-origin`, an opaque origin
 * (as isolated, only without a stable origin of its own). Pure.
 */
export interface SandboxFrame {
  /** The proxy page, with the dashboard's origin and the view's CSP in its query. */
  readonly src: string;
  /** The proxy frame's `sandbox` attribute. */
  readonly sandbox: string;
  /** The origin the proxy's messages come from (`null` for an opaque one). */
  readonly origin: string;
}

export function sandboxFrame(
  location: { readonly origin: string; readonly hostname: string; readonly port: string },
  csp: string,
): SandboxFrame {
  const other =
    location.hostname === '127.0.0.1'
      ? 'localhost'
      : location.hostname === 'localhost'
        ? '127.0.0.1'
        : undefined;
  const base =
    other === undefined ? location.origin : `http://${other}${location.port ? `:${location.port}` : ''}`;
  const query = new URLSearchParams({ host: location.origin, csp });
  return {
    src: `${base}/ui/sandbox.html?${query}`,
    sandbox: other === undefined ? 'allow-scripts' : 'allow-scripts allow-same-origin',
    origin: other === undefined ? 'null' : base,
  };
}
