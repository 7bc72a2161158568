import { BoundedMemo } from '../../../core/bounded-memo.js';
import { sandboxLabelOfHost } from '../../ui/app-sandbox.js';
import { isLoopbackHost } from '../addresses.js';
import type { Middleware, RequestHead } from '../context.js';
import { HttpError } from '../http-error.js';

export interface HostOriginOptions {
  /** The port the gateway listens on, when the connection does not say (in-process calls). */
  readonly port: number;
  /** Host header values allowed besides loopback names with the listening port. */
  readonly allowedHosts: readonly string[];
  /** Browser origins allowed besides loopback ones. */
  readonly allowedOrigins: readonly string[];
  /**
   * Requests another replica relayed here (docs/replicas.md): that replica checked their Host
   * and Origin with the same settings, and its proof is nothing a browser can forge. The Host
   * it relays may still name it (its own port), not this replica.
   */
  readonly exempt?: (head: RequestHead) => boolean;
  /**
   * The paths a server's MCP App sandbox origin (`app-<hex>.localhost` with the listening
   * port, ui/app-sandbox.ts) is served: the sandbox proxy's page and script. Under such a
   * Host, those paths and nothing else; default none.
   */
  readonly sandboxPaths?: (pathname: string) => boolean;
}

/**
 * DNS rebinding protection (MCP transports spec, "Security Warning"): a web page whose name
 * was re-pointed at 127.0.0.1 still sends its own name in `Host`, so `Host` must be a loopback
 * name or IP with the listening port, or listed in `allowedHosts`. An `Origin` header, sent by
 * browsers, must be a loopback origin or listed in `allowedOrigins`; `Origin: null` (sandboxed
 * frames, files) is refused. Anything else is 403.
 */
export function hostOrigin(options: HostOriginOptions): Middleware {
  const hosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  const origins = new Set(options.allowedOrigins.map((o) => new URL(o).origin));
  const hostAllowed = (host: string, port: number): boolean => {
    const lower = host.toLowerCase();
    if (hosts.has(lower)) return true;
    const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(lower);
    if (!match) return false;
    return isLoopbackHost(match[1]!) && Number(match[2] ?? '80') === port;
  };
  const originAllowed = (origin: string): boolean => {
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    if (origins.has(url.origin)) return true;
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  };
  // Verdicts by header value: clients send the same few thousands of times a second, and
  // judging one (parsing, loopback checks) costs more than the rest of this step.
  const hostVerdicts = new BoundedMemo<boolean>(256);
  const originVerdicts = new BoundedMemo<boolean>(256);
  const exempt = options.exempt;
  return (ctx, next) => {
    if (exempt?.(ctx.head)) return next();
    const host = ctx.head.header('host') ?? ctx.head.host;
    const port = ctx.localPort ?? options.port;
    const hostKey = `${port} ${host}`;
    const hostOk = hostVerdicts.get(hostKey) ?? hostVerdicts.remember(hostKey, hostAllowed(host, port));
    // A view's own origin (a name under .localhost, this machine alone): its sandbox files only,
    // asked for by itself (a browser's request names its own origin, or none for a plain GET).
    if (!hostOk && options.sandboxPaths?.(ctx.head.pathname) && sandboxLabelOfHost(host, port)) {
      const origin = ctx.head.header('origin');
      if (origin === null || origin.toLowerCase() === `http://${host.toLowerCase()}`) return next();
    }
    if (!hostOk) {
      throw new HttpError(
        403,
        `Host ${JSON.stringify(host.slice(0, 100))} is not allowed. Connect through localhost, or add the host to gateway.allowedHosts.`,
      );
    }
    const origin = ctx.head.header('origin');
    const originOk =
      origin === null ||
      (originVerdicts.get(origin) ?? originVerdicts.remember(origin, originAllowed(origin)));
    if (!originOk) {
      throw new HttpError(
        403,
        `Origin ${JSON.stringify(origin.slice(0, 100))} is not allowed. Add it to gateway.allowedOrigins if it should be.`,
      );
    }
    return next();
  };
}
