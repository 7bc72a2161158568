import { BlockList, isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, inspectAddress } from '../../src/policy/address-class.js';
import {
  ADDRESS_RANGES,
  type AddressClass,
  type AddressRange,
  rangeOf,
} from '../../src/policy/address-ranges.js';
import { formatIpv4, parseIpAddress } from '../../src/policy/ip-address.js';
import { decideHost } from '../../src/policy/network.js';

/**
 * The SSRF guard's classification, by address bytes: every textual form the URL parser and
 * resolvers hand over, every IPv6 form carrying an IPv4 address, and the boundaries of every
 * special-purpose range in the table — checked against Node's own address parser (BlockList,
 * isIP) and the WHATWG URL parser, so a table or parser slip shows here before any connect.
 */

/** [text, class, embedded IPv4 (for IPv6 forms that carry one)] */
const FORMS: readonly [string, AddressClass, string?][] = [
  // IPv4 as the URL parser and inet_aton(3) read it.
  ['127.0.0.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['0X7F.0.0.1', 'loopback'],
  ['2130706433', 'loopback'],
  ['017700000001', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['127.1', 'loopback'],
  ['127.0.1', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['127.0.0.1.', 'loopback'],
  ['0', 'unspecified'],
  ['0.0.0.0', 'unspecified'],
  ['0x0', 'unspecified'],
  ['169.254.169.254', 'metadata'],
  ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
  ['2852039166', 'metadata'],
  ['0251.0376.0251.0376', 'metadata'],
  ['169.254.43518', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['10.1.2.3', 'private'],
  ['012.1.2.3', 'private'],
  ['192.168.0.1', 'private'],
  ['100.64.0.1', 'private'],
  ['8.8.8.8', 'public'],
  ['134744072', 'public'],
  // IPv6, compressed, expanded, bracketed, upper case, zoned.
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
  ['::', 'unspecified'],
  ['[::]', 'unspecified'],
  ['fe80::1%eth0', 'link-local'],
  ['fe80::1%25eth0', 'link-local'],
  ['[fe80::1%25eth0]', 'link-local'],
  ['FE80::ABCD', 'link-local'],
  // IPv4-mapped ::ffff:0:0/96, every spelling.
  ['::ffff:169.254.169.254', 'metadata', '169.254.169.254'],
  ['[::ffff:169.254.169.254]', 'metadata', '169.254.169.254'],
  ['::ffff:a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['::FFFF:A9FE:A9FE', 'metadata', '169.254.169.254'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['0000:0000:0000:0000:0000:ffff:169.254.169.254', 'metadata', '169.254.169.254'],
  ['::ffff:a9fe:a9fe%eth0', 'metadata', '169.254.169.254'],
  ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
  ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
  ['::ffff:10.0.0.1', 'private', '10.0.0.1'],
  ['::ffff:0.0.0.0', 'unspecified', '0.0.0.0'],
  ['::ffff:192.0.2.1', 'reserved', '192.0.2.1'],
  ['::ffff:8.8.8.8', 'public'],
  // IPv4-compatible ::/96 (deprecated).
  ['::169.254.169.254', 'metadata', '169.254.169.254'],
  ['::a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['::127.0.0.1', 'loopback', '127.0.0.1'],
  ['::2', 'unspecified', '0.0.0.2'],
  // IPv4-translated ::ffff:0:0:0/96 (SIIT).
  ['::ffff:0:169.254.169.254', 'metadata', '169.254.169.254'],
  ['::ffff:0:a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['::ffff:0:7f00:1', 'loopback', '127.0.0.1'],
  // NAT64 64:ff9b::/96 and local-use 64:ff9b:1::/48.
  ['64:ff9b::169.254.169.254', 'metadata', '169.254.169.254'],
  ['64:ff9b::a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['64:ff9b::7f00:1', 'loopback', '127.0.0.1'],
  ['64:ff9b::a00:1', 'private', '10.0.0.1'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['64:ff9b:1:a9fe:a9:fe00::', 'metadata', '169.254.169.254'],
  ['64:ff9b:1::808:808', 'private'],
  // 6to4 2002::/16: bits 16–47.
  ['2002:a9fe:a9fe::1', 'metadata', '169.254.169.254'],
  ['2002:7f00:1::', 'loopback', '127.0.0.1'],
  ['2002:c0a8:101::1', 'private', '192.168.1.1'],
  ['2002:808:808::1', 'public'],
  // Teredo 2001::/32: server in bits 32–63, client in the last 32 bits, inverted.
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata', '169.254.169.254'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', '127.0.0.1'],
  ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'metadata', '169.254.169.254'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
  // ISATAP interface identifiers on any prefix.
  ['fe80::5efe:a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['2600::5efe:127.0.0.1', 'loopback', '127.0.0.1'],
  ['2600::200:5efe:a9fe:a9fe', 'metadata', '169.254.169.254'],
  ['2600::300:5efe:a00:1', 'private', '10.0.0.1'],
  ['fd00::5efe:808:808', 'private'],
  // Special-purpose IPv6.
  ['fc00::1', 'private'],
  ['fdff:ffff::1', 'private'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['2001:2::1', 'reserved'],
  ['2001:10::1', 'reserved'],
  ['2001:20::1', 'reserved'],
  ['2001:1::4', 'reserved'],
  ['2001:1::1', 'public'],
  ['5f00::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::23', 'metadata'],
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
];

/** [address, class]: just inside and just outside the ranges people get wrong. */
const BOUNDARIES: readonly [string, AddressClass][] = [
  ['9.255.255.255', 'public'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'private'],
  ['100.127.255.255', 'private'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.254.0.0', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.255', 'reserved'],
  ['192.0.0.9', 'public'],
  ['192.0.1.0', 'public'],
  ['192.0.2.0', 'reserved'],
  ['192.0.3.0', 'public'],
  ['192.88.98.255', 'public'],
  ['192.88.99.0', 'reserved'],
  ['192.167.255.255', 'public'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.18.0.0', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.0', 'public'],
  ['198.51.100.255', 'reserved'],
  ['203.0.112.255', 'public'],
  ['203.0.113.0', 'reserved'],
  ['223.255.255.255', 'public'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2000::', 'public'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['3fff:1000::', 'public'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['fc00::', 'private'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::', 'private'],
  ['ff00::', 'multicast'],
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['2001:db9::', 'public'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:200::', 'public'],
];

describe('SSRF address forms', () => {
  it.each(FORMS)('%s is %s', (text, expected, embedded) => {
    const verdict = inspectAddress(text);
    expect(verdict?.class).toBe(expected);
    expect(verdict?.embedded?.ipv4).toBe(embedded);
  });

  it.each(BOUNDARIES)('%s is %s', (text, expected) => {
    expect(classifyAddress(text)).toBe(expected);
  });

  it('classifies what the URL parser makes of each form the same as the form itself', () => {
    for (const [text, expected] of FORMS) {
      const bare = text.replace(/^\[|\]$/g, '');
      if (bare.includes('%')) {
        // The URL Standard has no zone ids: such a URL does not parse, so it is never connected to.
        expect(() => new URL(`http://[${bare}]/`)).toThrow();
        continue;
      }
      const host = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
      expect([text, classifyAddress(host)]).toEqual([text, expected]);
    }
  });

  it('reads IPv4 forms exactly as the WHATWG URL parser does', () => {
    const forms = [
      '0x7f.1',
      '2130706433',
      '017700000001',
      '0177.0.0.1',
      '127.1',
      '1.2.3',
      '0x',
      '4294967295',
      '4294967296',
      '1.2.3.4.',
      '1..2',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.256',
      '1.16777216',
      '08.1.1.1',
      '0x1g.1',
      '0xffffffff',
      '00.00.00.00',
    ];
    for (const form of forms) {
      let viaUrl: string | undefined;
      try {
        viaUrl = new URL(`http://${form}/`).hostname;
      } catch {
        viaUrl = undefined;
      }
      const ours = parseIpAddress(form);
      expect([form, ours ? formatIpv4(ours.bytes) : undefined]).toEqual([form, viaUrl]);
    }
  });

  it('parses every IPv6 text Node connects to as a literal, and refuses what Node refuses', () => {
    const texts = [
      '::',
      '::1',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7::',
      '::1:2:3:4:5:6:7',
      '1::8',
      '1:2:3:4:5:6:1.2.3.4',
      '::1.2.3.4',
      '::ffff:1.2.3.4',
      'FFFF::',
      'fe80::1%eth0',
      '1::2::3',
      '12345::',
      '1:2:3:4:5:6:7:8:9',
      ':1::',
      '1::2:',
      '::ffff:01.2.3.4',
      '::ffff:256.1.1.1',
      '1:2:3:4:5:6:7',
      'g::1',
    ];
    for (const text of texts) {
      const ours = parseIpAddress(text);
      expect([text, ours?.family ?? 0]).toEqual([text, isIP(text)]);
    }
  });

  describe('every range of the table, at its boundaries', () => {
    it.each(ADDRESS_RANGES.map((range) => [range.cidr, range] as const))('%s', (_cidr, range) => {
      const { family, first, last, bits } = bounds(range);
      const oracle = new BlockList();
      oracle.addSubnet(text(first), bits, family === 4 ? 'ipv4' : 'ipv6');
      const type = family === 4 ? 'ipv4' : 'ipv6';
      // Node's parser agrees on where the range starts and ends…
      expect(oracle.check(text(first), type)).toBe(true);
      expect(oracle.check(text(last), type)).toBe(true);
      for (const outside of [step(first, -1), step(last, 1)]) {
        if (outside) expect(oracle.check(text(outside), type)).toBe(false);
      }
      // …and the lookup honours it: inside, this row or a more specific one within it decides.
      for (const inside of [first, last]) {
        const found = rangeOf({ family, bytes: inside });
        expect(found && within(found, range)).toBe(true);
      }
      for (const outside of [step(first, -1), step(last, 1)]) {
        if (outside) expect(rangeOf({ family, bytes: outside })).not.toBe(range);
      }
    });
  });

  it('refuses every hostile form in every profile, and private ones only where private is not allowed', () => {
    for (const [address, kind] of FORMS) {
      for (const profile of ['interactive', 'daemon', 'public_gateway']) {
        const decision = decideHost('evil.test', [address], { profile });
        const allowed =
          kind === 'public' || ((kind === 'loopback' || kind === 'private') && profile === 'interactive');
        expect([address, profile, decision.allowed]).toEqual([address, profile, allowed]);
      }
    }
  });

  it('says a host name or garbage is not an address', () => {
    for (const text of ['example.com', 'localhost', '1.2.3.foo', '', '[]', '::g', '1.2.3.4.5']) {
      expect([text, inspectAddress(text)]).toEqual([text, undefined]);
    }
  });
});

function bounds(range: AddressRange) {
  const [prefix = '', size = ''] = range.cidr.split('/');
  const parsed = parseIpAddress(prefix)!;
  const bits = Number(size);
  const first = parsed.bytes.slice();
  const last = parsed.bytes.slice();
  for (let bit = bits; bit < first.length * 8; bit++) {
    first[bit >> 3]! &= ~(0x80 >> (bit & 7));
    last[bit >> 3]! |= 0x80 >> (bit & 7);
  }
  return { family: parsed.family, first, last, bits };
}

/** The address one below or above, or undefined past the ends of the space. */
function step(bytes: Uint8Array, by: 1 | -1): Uint8Array | undefined {
  const out = bytes.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    const value = out[i]! + by;
    if (value >= 0 && value <= 255) {
      out[i] = value;
      return out;
    }
    out[i] = by === 1 ? 0 : 255;
  }
  return undefined;
}

/** Full-form text of address bytes, for Node's parser. */
function text(bytes: Uint8Array): string {
  if (bytes.length === 4) return formatIpv4(bytes);
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** Whether `inner`'s range lies within `outer`'s. */
function within(inner: AddressRange, outer: AddressRange): boolean {
  const a = bounds(inner);
  const b = bounds(outer);
  if (a.family !== b.family || a.bits < b.bits) return false;
  const oracle = new BlockList();
  oracle.addSubnet(text(b.first), b.bits, b.family === 4 ? 'ipv4' : 'ipv6');
  return oracle.check(text(a.first), b.family === 4 ? 'ipv4' : 'ipv6');
}
