import { isIP } from 'node:net';

/**
 * What the gateway needs to know about addresses: whether a host name or IP is this machine
 * (loopback), and which bucket an address is rate-limited in. Pure.
 */

/** The 8 groups of an IPv6 address (zone id dropped, embedded IPv4 folded in), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split('%')[0]!.toLowerCase();
  if (isIP(text) !== 6) return undefined;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back].map((group) => Number.parseInt(group, 16));
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`), if it is one. */
function mappedIpv4(groups: readonly number[]): string | undefined {
  if (groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff) return undefined;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for an IP address of this machine: 127.0.0.0/8, ::1, and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.');
  const groups = ipv6Groups(address);
  if (groups === undefined) return false;
  const v4 = mappedIpv4(groups);
  if (v4 !== undefined) return v4.startsWith('127.');
  return groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
}

/**
 * True for a host name or address that can only mean this machine: `localhost` (RFC 6761
 * §6.3 lets resolvers answer it with loopback only) and loopback IPs, bracketed or not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || isLoopbackAddress(bare);
}

/**
 * The rate-limit bucket of a remote address. IPv4 addresses stand alone (an IPv4-mapped IPv6
 * address is its IPv4 address); an IPv6 address counts as its /64, because one host usually
 * holds a whole /64 and could otherwise walk through 2^64 buckets.
 */
export function rateLimitKey(address: string): string {
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  const v4 = mappedIpv4(groups);
  if (v4 !== undefined) return v4;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
