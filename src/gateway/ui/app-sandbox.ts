import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Each server's MCP App views get an origin of their own in the dashboard: the gateway under
 * `<label>.localhost` (its port), where the label is derived from the server's name —
 * `app-` and the first 16 hex digits of its SHA-256 — so the same server gets the same origin
 * on every run, and two servers never share one: a view's storage and cookies are its own
 * server's, never another server's apps' (SEP-1865 §UI Resource Format, `domain`: "If
 * omitted, Host uses default sandbox origin"). Names under `.localhost` can only mean this
 * machine (RFC 6761 §6.3), and browsers resolve them to loopback without asking DNS.
 *
 * The sandbox page's Content-Security-Policy comes from its URL (the page is static), so on a
 * view's own origin — where the view and its proxy share the origin, and the view could reload
 * the proxy with another URL — the URL carries a token: an HMAC over the label and the CSP the
 * API issued, which the page's handler checks. A URL cannot name another CSP, nor another
 * server's origin for this one's CSP.
 */

/** The suffix of every sandbox host name. */
export const SANDBOX_HOST_SUFFIX = '.localhost';
const LABEL = /^app-[0-9a-f]{16}$/;

/** The label of `server`'s sandbox origin: `app-` and 16 hex digits of SHA-256 of its name. */
export function sandboxLabel(server: string): string {
  return `app-${createHash('sha256').update(server, 'utf8').digest('hex').slice(0, 16)}`;
}

/** The dedicated domain of `server`'s views: `<label>.localhost`. */
export function sandboxDomain(server: string): string {
  return `${sandboxLabel(server)}${SANDBOX_HOST_SUFFIX}`;
}

/**
 * The label a `Host` header names when it is a sandbox host of this gateway
 * (`app-<16 hex>.localhost`, with `port` when the header has one); undefined otherwise.
 */
export function sandboxLabelOfHost(host: string, port: number): string | undefined {
  const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match || Number(match[2] ?? '80') !== port) return undefined;
  return sandboxLabelOfName(match[1]!);
}

/** The label a host name (without port) names when it is a sandbox host; undefined otherwise. */
export function sandboxLabelOfName(hostname: string): string | undefined {
  const lower = hostname.toLowerCase();
  if (!lower.endsWith(SANDBOX_HOST_SUFFIX)) return undefined;
  const label = lower.slice(0, -SANDBOX_HOST_SUFFIX.length);
  return LABEL.test(label) ? label : undefined;
}

/** What the host does with a view's declared `_meta.ui.domain`. */
export interface DomainVerdict {
  /** Whether the view runs at the domain it declared. */
  readonly honoured: boolean;
  /** Said to the person and in the API: where the view runs and why. */
  readonly notice: string;
}

/**
 * The verdict on `declared` (`_meta.ui.domain`) for a view of `server`. The format is the
 * host's to choose (spec: "Host-dependent"); Switchboard's is `sandboxDomain(server)`. A view
 * that declares exactly that runs there; any other domain cannot be provided by a gateway on
 * this machine (it would need that name's DNS and certificates), and the view runs on its
 * server's own origin instead — said, not silently ignored. Undefined when nothing is declared.
 */
export function domainVerdict(declared: string | undefined, server: string): DomainVerdict | undefined {
  if (declared === undefined) return undefined;
  const own = sandboxDomain(server);
  if (declared.toLowerCase() === own) {
    return { honoured: true, notice: `The view runs at the domain it declared, ${own}.` };
  }
  return {
    honoured: false,
    notice:
      `The view declares the domain ${JSON.stringify(declared.slice(0, 200))}, which this host cannot provide; ` +
      `it runs at ${own}, the origin of server "${server}"'s views (declare that domain to ask for it).`,
  };
}

/** Issues and checks the tokens of sandbox pages (see the module's comment). */
export interface SandboxSigner {
  sign(label: string, csp: string): string;
  verify(label: string, csp: string, token: string): boolean;
}

/**
 * A signer over `secret` (derived with HKDF, so the shared secret of replicas serves here too:
 * any replica checks what another issued); random per process without one.
 */
export function sandboxSigner(secret?: Uint8Array): SandboxSigner {
  const key = secret
    ? new Uint8Array(hkdfSync('sha256', secret, 'switchboard', 'app sandbox page v1', 32))
    : randomBytes(32);
  const mac = (label: string, csp: string) =>
    createHmac('sha256', key).update(`${label}\n${csp}`, 'utf8').digest().subarray(0, 18);
  return {
    sign: (label, csp) => mac(label, csp).toString('base64url'),
    verify: (label, csp, token) => {
      const given = Buffer.from(token, 'base64url');
      const wanted = mac(label, csp);
      return given.length === wanted.length && timingSafeEqual(given, wanted);
    },
  };
}
