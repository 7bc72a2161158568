import { type IpAddress, parseIpAddress, prefixMatches } from './ip-address.js';

/**
 * The special-purpose address ranges, as a table the network policy looks addresses up in.
 * Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890) in full, the
 * IPv4 multicast range (RFC 5771), the IPv6 addressing architecture (RFC 4291: multicast,
 * deprecated site-local, IPv4-compatible) and SIIT's IPv4-translated form (RFC 2765), plus the
 * cloud metadata services, which sit at ordinary-looking addresses and are the prize of an SSRF.
 * A row's `embeds` names how an IPv6 range carries an IPv4 address; that address is judged
 * too (address-class.ts). The most specific row wins (2001:1::1/128 inside 2001::/23).
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

/** How an IPv6 range carries an IPv4 address (see address-class.ts for where the bits sit). */
export type Embedding =
  | 'ipv4-mapped'
  | 'ipv4-compatible'
  | 'ipv4-translated'
  | 'nat64'
  | 'nat64-local'
  | '6to4'
  | 'teredo';

export interface AddressRange {
  readonly cidr: string;
  readonly class: AddressClass;
  /** What the range is, with its RFC, for messages: "Private-Use, RFC 1918". */
  readonly name: string;
  readonly embeds?: Embedding;
}

/** Cloud metadata services. Never reached unless the host is explicitly allowed. */
const METADATA: readonly AddressRange[] = [
  m('169.254.169.254/32', 'AWS, GCP, Azure, OCI, OpenStack, DigitalOcean… instance metadata'),
  m('169.254.170.2/32', 'AWS ECS task metadata and credentials'),
  m('169.254.170.23/32', 'AWS EKS Pod Identity credentials'),
  m('169.254.0.23/32', 'Tencent Cloud instance metadata'),
  m('169.254.42.42/32', 'Scaleway instance metadata'),
  m('100.100.100.200/32', 'Alibaba Cloud instance metadata'),
  m('192.0.0.192/32', 'Oracle Cloud (classic) instance metadata'),
  m('168.63.129.16/32', 'Azure platform WireServer'),
  m('fd00:ec2::254/128', 'AWS instance metadata (IPv6)'),
  m('fd00:ec2::23/128', 'AWS EKS Pod Identity credentials (IPv6)'),
  m('fd20:ce::254/128', 'GCP instance metadata (IPv6)'),
];

const IPV4: readonly AddressRange[] = [
  r('0.0.0.0/8', 'unspecified', '"This network", RFC 791; connecting to it reaches this machine'),
  r('10.0.0.0/8', 'private', 'Private-Use, RFC 1918'),
  r('100.64.0.0/10', 'private', 'Shared Address Space, carrier-grade NAT, RFC 6598'),
  r('127.0.0.0/8', 'loopback', 'Loopback, RFC 1122'),
  r('169.254.0.0/16', 'link-local', 'Link-Local, RFC 3927'),
  r('172.16.0.0/12', 'private', 'Private-Use, RFC 1918'),
  r('192.0.0.0/24', 'reserved', 'IETF Protocol Assignments, RFC 6890'),
  r('192.0.0.0/29', 'reserved', 'IPv4 Service Continuity Prefix, RFC 7335'),
  r('192.0.0.8/32', 'reserved', 'IPv4 dummy address, RFC 7600'),
  r('192.0.0.9/32', 'public', 'Port Control Protocol Anycast, RFC 7723'),
  r('192.0.0.10/32', 'public', 'Traversal Using Relays around NAT Anycast, RFC 8155'),
  r('192.0.0.170/31', 'reserved', 'NAT64/DNS64 Discovery, RFC 8880'),
  r('192.0.2.0/24', 'reserved', 'Documentation, TEST-NET-1, RFC 5737'),
  r('192.31.196.0/24', 'public', 'AS112-v4, RFC 7535'),
  r('192.52.193.0/24', 'public', 'AMT, RFC 7450'),
  r('192.88.99.0/24', 'reserved', 'Deprecated 6to4 Relay Anycast, RFC 7526'),
  r('192.168.0.0/16', 'private', 'Private-Use, RFC 1918'),
  r('192.175.48.0/24', 'public', 'Direct Delegation AS112 Service, RFC 7534'),
  r('198.18.0.0/15', 'reserved', 'Benchmarking, RFC 2544'),
  r('198.51.100.0/24', 'reserved', 'Documentation, TEST-NET-2, RFC 5737'),
  r('203.0.113.0/24', 'reserved', 'Documentation, TEST-NET-3, RFC 5737'),
  r('224.0.0.0/4', 'multicast', 'Multicast, RFC 5771'),
  r('240.0.0.0/4', 'reserved', 'Reserved, RFC 1112'),
  r('255.255.255.255/32', 'reserved', 'Limited Broadcast, RFC 919'),
];

const IPV6: readonly AddressRange[] = [
  // Outside 2000::/3 nothing is allocated as global unicast (IANA IPv6 Address Space):
  // the rows below carve out the special ranges there; the rest stays reserved.
  r('::/0', 'reserved', 'Reserved by the IETF (IANA IPv6 Address Space)'),
  r('2000::/3', 'public', 'Global Unicast, RFC 4291'),
  r('::/128', 'unspecified', 'Unspecified Address, RFC 4291; connecting to it reaches this machine'),
  r('::1/128', 'loopback', 'Loopback Address, RFC 4291'),
  r('::/96', 'public', 'IPv4-compatible, deprecated, RFC 4291 §2.5.5.1', 'ipv4-compatible'),
  r('::ffff:0:0/96', 'public', 'IPv4-mapped, RFC 4291 §2.5.5.2', 'ipv4-mapped'),
  r('::ffff:0:0:0/96', 'public', 'IPv4-translated, RFC 2765', 'ipv4-translated'),
  r('64:ff9b::/96', 'public', 'IPv4-IPv6 Translation, NAT64, RFC 6052', 'nat64'),
  r('64:ff9b:1::/48', 'private', 'Local-Use IPv4/IPv6 Translation, RFC 8215', 'nat64-local'),
  r('100::/64', 'reserved', 'Discard-Only Address Block, RFC 6666'),
  r('100:0:0:1::/64', 'reserved', 'Dummy IPv6 Prefix, RFC 9780'),
  r('2001::/23', 'reserved', 'IETF Protocol Assignments, RFC 2928'),
  r('2001::/32', 'public', 'Teredo, RFC 4380', 'teredo'),
  r('2001:1::1/128', 'public', 'Port Control Protocol Anycast, RFC 7723'),
  r('2001:1::2/128', 'public', 'Traversal Using Relays around NAT Anycast, RFC 8155'),
  r('2001:1::3/128', 'public', 'DNS-SD Service Registration Protocol Anycast, RFC 9665'),
  r('2001:2::/48', 'reserved', 'Benchmarking, RFC 5180'),
  r('2001:3::/32', 'public', 'AMT, RFC 7450'),
  r('2001:4:112::/48', 'public', 'AS112-v6, RFC 7535'),
  r('2001:10::/28', 'reserved', 'Deprecated ORCHID, RFC 4843'),
  r('2001:20::/28', 'reserved', 'ORCHIDv2, identifiers, not locators, RFC 7343'),
  r('2001:30::/28', 'reserved', 'Drone Remote ID Protocol Entity Tags, identifiers, RFC 9374'),
  r('2001:db8::/32', 'reserved', 'Documentation, RFC 3849'),
  r('2002::/16', 'public', '6to4, RFC 3056', '6to4'),
  r('2620:4f:8000::/48', 'public', 'Direct Delegation AS112 Service, RFC 7534'),
  r('3fff::/20', 'reserved', 'Documentation, RFC 9637'),
  r('5f00::/16', 'reserved', 'Segment Routing (SRv6) SIDs, RFC 9602'),
  r('fc00::/7', 'private', 'Unique-Local, RFC 4193'),
  r('fe80::/10', 'link-local', 'Link-Local Unicast, RFC 4291'),
  r('fec0::/10', 'private', 'Site-Local, deprecated, RFC 3879'),
  r('ff00::/8', 'multicast', 'Multicast, RFC 4291'),
];

/** Every row, metadata first (each a single address, so always the most specific). */
export const ADDRESS_RANGES: readonly AddressRange[] = [...METADATA, ...IPV4, ...IPV6];

interface CompiledRange {
  readonly range: AddressRange;
  readonly bytes: Uint8Array;
  readonly bits: number;
}

const compiled: Record<4 | 6, CompiledRange[]> = { 4: [], 6: [] };
for (const range of ADDRESS_RANGES) {
  const [prefix = '', bits = ''] = range.cidr.split('/');
  const address = parseIpAddress(prefix) as IpAddress;
  compiled[address.family].push({ range, bytes: address.bytes, bits: Number(bits) });
}
// Most specific first, so the first match is the one that counts.
for (const list of Object.values(compiled)) list.sort((a, b) => b.bits - a.bits);

/** The most specific row containing `address`; for IPv4 outside every row, undefined (public). */
export function rangeOf(address: IpAddress): AddressRange | undefined {
  return compiled[address.family].find((row) => prefixMatches(address.bytes, row.bytes, row.bits))?.range;
}

function r(cidr: string, kind: AddressClass, name: string, embeds?: Embedding): AddressRange {
  return embeds === undefined ? { cidr, class: kind, name } : { cidr, class: kind, name, embeds };
}

function m(cidr: string, name: string): AddressRange {
  return { cidr, class: 'metadata', name };
}
