import { z } from 'zod';

/**
 * The `network` of a sandbox profile: where a sandboxed server may connect. Validated and
 * normalized here; `client/sandbox/` builds it (a network namespace of its own, and for the
 * filtered kinds a proxy and relay the host runs) and `policy/sandbox-destination.ts` judges
 * each destination.
 *
 * ```jsonc
 * "network": "none"          // only a loopback of its own (default)
 * "network": "host"          // the host's network, all of it
 * "network": "loopback"      // the host's 127.0.0.1, any port, through its proxy
 * "network": { "loopback": [5432], "hosts": ["api.github.com", "*.example.com:8443"] }
 * ```
 */

/** One listed destination: a host name, a `*.` wildcard or an IP address, on some ports. */
export interface SandboxHost {
  /** As written (shown and stored again). */
  readonly text: string;
  /** Lower case, as a URL spells it (IDN in punycode, IPv4 forms dotted, IPv6 unbracketed), `*.` kept. */
  readonly host: string;
  /** The ports it may be reached on; a bare name means 443 and 80. */
  readonly ports: readonly number[];
}

/** The host's loopback: not reachable, reachable on any port (through the proxy), or on these ports (mirrored too). */
export type SandboxLoopback = 'none' | 'any' | readonly number[];

/** Where a sandboxed server may connect. */
export type SandboxNetwork =
  | { readonly kind: 'none' }
  | { readonly kind: 'host' }
  | {
      /**
       * A network namespace of its own, with the host reached through a proxy and relay the
       * host runs: each destination judged (listed, and its addresses not private unless allowed).
       */
      readonly kind: 'filtered';
      readonly loopback: SandboxLoopback;
      readonly hosts: readonly SandboxHost[];
      /** Whether a listed name may resolve to a private (RFC 1918, ULA) address. */
      readonly allowPrivate: boolean;
    };

export type FilteredNetwork = Extract<SandboxNetwork, { kind: 'filtered' }>;

export const NO_NETWORK: SandboxNetwork = { kind: 'none' };

/** The ports of a listed name without one: HTTPS and HTTP. */
export const DEFAULT_HOST_PORTS: readonly number[] = [443, 80];

const port = z.number().int().min(1).max(65_535);

/** `host`, `host:port`, `*.domain`, `*.domain:port`, an IPv4 address or `[IPv6]` with a port. */
const hostEntry = z
  .string()
  .min(1)
  .max(300)
  .refine((text) => parseHostEntry(text) !== undefined, {
    message:
      'must be a host name, "*.domain" or an IP address, with an optional port (e.g. "api.github.com", "*.example.com:8443", "[::1]:8080")',
  });

const filteredSchema = z.strictObject({
  loopback: z
    .union([z.boolean(), z.array(port).max(64)])
    .optional()
    .describe(
      "The host's 127.0.0.1: true for any port (through the proxy), or a list of ports (also mirrored: 127.0.0.1:<port> inside is the host's).",
    ),
  hosts: z
    .array(hostEntry)
    .max(256)
    .optional()
    .describe('Hosts reached through the proxy (a bare name: ports 443 and 80).'),
  allowPrivate: z
    .boolean()
    .optional()
    .describe('Let a listed name resolve to a private address (default false: refused).'),
});

/** The raw `network` field (zod). */
export const sandboxNetworkSchema = z.union([z.enum(['none', 'host', 'loopback']), filteredSchema]).meta({
  default: 'none',
  description:
    'none: only a loopback of its own; host: the host\'s network; loopback: the host\'s 127.0.0.1 through its proxy; or { "loopback": [ports], "hosts": [...] }.',
});

export type RawSandboxNetwork = z.input<typeof sandboxNetworkSchema>;

/** The normalized network of a raw value (validated by the schema). Pure. */
export function normalizeSandboxNetwork(
  raw: z.output<typeof sandboxNetworkSchema> | undefined,
): SandboxNetwork {
  if (raw === undefined || raw === 'none') return NO_NETWORK;
  if (raw === 'host') return { kind: 'host' };
  if (raw === 'loopback') return { kind: 'filtered', loopback: 'any', hosts: [], allowPrivate: false };
  const loopback: SandboxLoopback =
    raw.loopback === true ? 'any' : Array.isArray(raw.loopback) ? [...new Set(raw.loopback)] : 'none';
  const hosts = (raw.hosts ?? []).map((text) => parseHostEntry(text)!);
  if (loopback === 'none' && hosts.length === 0) return NO_NETWORK;
  return { kind: 'filtered', loopback, hosts, allowPrivate: raw.allowPrivate ?? false };
}

/** The raw form of a network, as an entry is shown or stored again. Pure. */
export function rawSandboxNetwork(network: SandboxNetwork): RawSandboxNetwork {
  if (network.kind !== 'filtered') return network.kind;
  const { loopback, hosts, allowPrivate } = network;
  if (loopback === 'any' && hosts.length === 0 && !allowPrivate) return 'loopback';
  return {
    ...(loopback !== 'none' && { loopback: loopback === 'any' ? true : [...loopback] }),
    ...(hosts.length > 0 && { hosts: hosts.map((h) => h.text) }),
    ...(allowPrivate && { allowPrivate }),
  };
}

/** The network in words ("no network", "api.github.com:443,80 through its proxy", …). Pure. */
export function describeSandboxNetwork(network: SandboxNetwork): string {
  if (network.kind === 'none') return 'no network';
  if (network.kind === 'host') return "the host's network";
  const parts: string[] = [];
  if (network.loopback === 'any') parts.push("the host's loopback (any port, through its proxy)");
  else if (network.loopback !== 'none')
    parts.push(
      `the host's loopback on port${network.loopback.length > 1 ? 's' : ''} ${network.loopback.join(', ')}`,
    );
  if (network.hosts.length > 0)
    parts.push(
      `${network.hosts.map((h) => `${h.host}:${h.ports.join(',')}`).join(', ')} through its proxy${network.allowPrivate ? ' (private addresses allowed)' : ''}`,
    );
  return `network: ${parts.join('; ')}`;
}

/**
 * A listed entry as host and ports, or undefined when it names no host. The host is spelled as
 * a URL would spell it, so `0x7f.1` lists 127.0.0.1 and `Example.COM.` lists example.com. Pure.
 */
export function parseHostEntry(text: string): SandboxHost | undefined {
  const trimmed = text.trim();
  // host:port, [v6]:port; a bare IPv6 address has colons and no port.
  const withPort = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(trimmed);
  const hostPart = withPort ? withPort[1]! : trimmed;
  const ports = withPort ? [Number(withPort[2])] : DEFAULT_HOST_PORTS;
  if (ports.some((p) => p < 1 || p > 65_535)) return undefined;
  const wildcard = hostPart.startsWith('*.');
  const host = canonicalHost(wildcard ? hostPart.slice(2) : hostPart);
  if (host === undefined || (wildcard && (host.includes(':') || /^[\d.]+$/.test(host)))) return undefined;
  return { text, host: wildcard ? `*.${host}` : host, ports };
}

/**
 * A host as a URL spells it: lower case, IDN as punycode, every IPv4 form (`0x7f.1`,
 * `2130706433`, `0177.0.0.1`) dotted decimal, IPv6 compressed and without brackets, one
 * trailing dot dropped. Undefined when it is not a host (empty, a path, user info, a port). Pure.
 */
export function canonicalHost(text: string): string | undefined {
  if (text === '' || /[/?#@\\\s]/.test(text)) return undefined;
  const bracketed = text.includes(':') && !text.startsWith('[') ? `[${text}]` : text;
  let url: URL;
  try {
    url = new URL(`http://${bracketed}/`);
  } catch {
    return undefined;
  }
  if (url.port !== '' || url.hostname === '') return undefined;
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}
