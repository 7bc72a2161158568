import { canonicalHost } from '../../core/config/sandbox-network.js';

/**
 * The destination of one proxy request from inside a sandbox: `CONNECT host:port` (authority
 * form, RFC 9110 §9.3.6) or an absolute URI (`GET http://host/path`, RFC 9112 §3.2.2). The host
 * is spelled as a URL spells it, so every IPv4 form (`0x7f.1`, `2130706433`, `0177.0.0.1`) is
 * judged, and connected to, as the dotted address it means. Pure.
 */
export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** The parsed target, or why it is not one (answered 400). */
export type ParsedTarget =
  | { readonly ok: true; readonly target: ProxyTarget; readonly path?: string }
  | { readonly ok: false; readonly reason: string };

/** A CONNECT request's authority (`host:port`, `[v6]:port`). */
export function parseConnectTarget(authority: string | undefined): ParsedTarget {
  const match = /^(\[[^\]]+\]|[^:[\]/@]+):(\d{1,5})$/.exec(authority ?? '');
  if (!match) return { ok: false, reason: `CONNECT needs host:port, got "${authority ?? ''}"` };
  const host = canonicalHost(match[1]!);
  const port = Number(match[2]);
  if (host === undefined) return { ok: false, reason: `"${match[1]}" is not a host name or address` };
  if (port < 1 || port > 65_535) return { ok: false, reason: `port ${port} is out of range` };
  return { ok: true, target: { host, port } };
}

/** A plain HTTP request's absolute URI (only `http:`; HTTPS goes through CONNECT). */
export function parseForwardTarget(uri: string | undefined): ParsedTarget {
  let url: URL;
  try {
    url = new URL(uri ?? '');
  } catch {
    return {
      ok: false,
      reason: `a proxy request needs an absolute http:// URI, got "${(uri ?? '').slice(0, 200)}"`,
    };
  }
  if (url.protocol !== 'http:')
    return { ok: false, reason: `only http:// is forwarded (${url.protocol} goes through CONNECT)` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'credentials in the URI are not forwarded' };
  const host = canonicalHost(url.hostname);
  if (host === undefined) return { ok: false, reason: `"${url.hostname}" is not a host name or address` };
  return {
    ok: true,
    target: { host, port: url.port === '' ? 80 : Number(url.port) },
    path: `${url.pathname}${url.search}`,
  };
}

/** `host:port` as written in a message (IPv6 bracketed). */
export function showTarget(target: ProxyTarget): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}
