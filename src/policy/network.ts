import { isIP } from 'node:net';

/**
 * Which HTTP upstreams a server entry may reach. An agent that can register servers could
 * point one at the cloud metadata endpoint or a service on the private network (SSRF), so
 * such addresses are denied unless the host is explicitly allowed. Pure: the caller resolves
 * the hostname and passes the addresses in.
 */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'public';

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

function ipv4Class(ip: string): AddressClass {
  const [a = 0, b = 0] = ip.split('.').map(Number);
  if (METADATA.has(ip)) return 'metadata';
  if (a === 127) return 'loopback';
  if (a === 0) return 'unspecified';
  if (
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  ) {
    return 'private';
  }
  if (a === 169 && b === 254) return 'link-local';
  return 'public';
}

/** The class of an IP address (v4 or v6, including v4-mapped v6). */
export function classifyAddress(address: string): AddressClass {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(ip) === 4) return ipv4Class(ip);
  if (isIP(ip) !== 6) return 'public';
  if (METADATA.has(ip)) return 'metadata';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return ipv4Class(mapped[1]!);
  if (ip === '::1') return 'loopback';
  if (ip === '::') return 'unspecified';
  if (/^f[cd]/.test(ip)) return 'private';
  if (/^fe[89ab]/.test(ip)) return 'link-local';
  return 'public';
}

export interface NetworkPolicy {
  /** Host names (or `*.example.com` patterns) that may be reached whatever they resolve to. */
  readonly allowedHosts?: readonly string[];
  /** Allow loopback and private addresses (a developer's own machine and LAN). */
  readonly allowPrivate?: boolean;
}

export interface NetworkDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) =>
    pattern.startsWith('*.')
      ? host.endsWith(pattern.slice(1)) || host === pattern.slice(2)
      : host === pattern.toLowerCase(),
  );
}

/** Decides whether `url`, resolving to `addresses`, may be reached under `policy`. */
export function decideNetwork(
  url: string,
  addresses: readonly string[],
  policy: NetworkPolicy = {},
): NetworkDecision {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return { allowed: false, reason: `"${url}" is not a URL` };
  }
  if (policy.allowedHosts && hostAllowed(host, policy.allowedHosts))
    return { allowed: true, reason: `${host} is allowed` };
  if (policy.allowedHosts && policy.allowedHosts.length > 0) {
    return { allowed: false, reason: `${host} is not in the allowed hosts; add it to allow it` };
  }
  for (const address of addresses.length > 0 ? addresses : [host]) {
    const kind = classifyAddress(address);
    if (kind === 'metadata' || kind === 'link-local' || kind === 'unspecified') {
      return {
        allowed: false,
        reason: `${host} resolves to ${address}, a ${kind} address; list the host in allowedHosts if this is intended`,
      };
    }
    if ((kind === 'private' || kind === 'loopback') && !policy.allowPrivate) {
      return {
        allowed: false,
        reason: `${host} resolves to ${address}, a ${kind} address; allow private addresses or list the host`,
      };
    }
  }
  return { allowed: true, reason: `${host} is a public address` };
}
