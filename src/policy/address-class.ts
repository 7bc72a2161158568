import { type AddressClass, type AddressRange, type Embedding, rangeOf } from './address-ranges.js';
import { formatIpv4, type IpAddress, parseIpAddress } from './ip-address.js';

/**
 * The class of an IP address, judged by its bytes: the most specific special-purpose range it
 * falls in (address-ranges.ts), and — for every IPv6 form that maps, embeds or translates an
 * IPv4 address — the class of that IPv4 address too, the stricter of the two winning. So
 * `::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`, `64:ff9b::a9fe:a9fe`, `2002:a9fe:a9fe::1` and a
 * Teredo address whose client is 169.254.169.254 are all the metadata address. Pure.
 */
export interface AddressVerdict {
  readonly class: AddressClass;
  /** The range that decided; undefined for an ordinary public IPv4 address. */
  readonly range?: AddressRange;
  /** Set when the class comes from an IPv4 address carried inside an IPv6 one. */
  readonly embedded?: { readonly form: string; readonly ipv4: string };
}

/** How strict each class is: an address takes the strictest of its readings. */
const STRICTNESS: Record<AddressClass, number> = {
  public: 0,
  private: 1,
  loopback: 2,
  reserved: 3,
  multicast: 3,
  'link-local': 3,
  unspecified: 3,
  metadata: 4,
};

const FORM: Record<Embedding | 'isatap', string> = {
  'ipv4-mapped': 'IPv4-mapped',
  'ipv4-compatible': 'IPv4-compatible',
  'ipv4-translated': 'IPv4-translated',
  nat64: 'NAT64',
  'nat64-local': 'local-use NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  isatap: 'ISATAP',
};

/** The verdict on `text`, or undefined when it is not an IP address. */
export function inspectAddress(text: string): AddressVerdict | undefined {
  const address = parseIpAddress(text);
  return address && inspectParsed(address);
}

/** The class of `text`, or undefined when it is not an IP address. */
export function classifyAddress(text: string): AddressClass | undefined {
  return inspectAddress(text)?.class;
}

function inspectParsed(address: IpAddress): AddressVerdict {
  const range = rangeOf(address);
  let verdict: AddressVerdict = range ? { class: range.class, range } : { class: 'public' };
  if (address.family === 4) return verdict;
  for (const { form, bytes } of embeddedIpv4(address.bytes, range?.embeds)) {
    const inner = inspectParsed({ family: 4, bytes });
    // Ties go to the embedded address: it is where the packet ends up.
    if (STRICTNESS[inner.class] >= STRICTNESS[verdict.class] && inner.class !== 'public') {
      verdict = { ...inner, embedded: { form: FORM[form], ipv4: formatIpv4(bytes) } };
    }
  }
  return verdict;
}

/**
 * Every IPv4 address an IPv6 address carries, by form. Where the bits sit:
 *  - IPv4-mapped `::ffff:0:0/96`, IPv4-compatible `::/96`, IPv4-translated `::ffff:0:0:0/96`,
 *    NAT64 `64:ff9b::/96` (RFC 6052 §2.2, /96): the last 32 bits.
 *  - Local-use NAT64 `64:ff9b:1::/48` (RFC 8215): the operator picks a prefix of /48…/96, so
 *    each RFC 6052 §2.2 position that fits (/48, /56, /64, /96, skipping the `u` octet) and
 *    whose `u` octet and suffix are zero is read.
 *  - 6to4 `2002::/16` (RFC 3056 §2): bits 16–47.
 *  - Teredo `2001::/32` (RFC 4380 §4): the server in bits 32–63, the client in the last 32 bits,
 *    each bit inverted (the "obfuscated" address).
 *  - ISATAP (RFC 5214 §6.1), any prefix: an interface identifier `[02]00:5efe` + IPv4, the u/g
 *    bits of its first octet aside.
 */
function embeddedIpv4(
  bytes: Uint8Array,
  embeds: Embedding | undefined,
): { form: Embedding | 'isatap'; bytes: Uint8Array }[] {
  const found: { form: Embedding | 'isatap'; bytes: Uint8Array }[] = [];
  const at = (form: Embedding | 'isatap', ...indexes: number[]) =>
    found.push({ form, bytes: new Uint8Array(indexes.map((i) => bytes[i]!)) });
  switch (embeds) {
    case 'ipv4-mapped':
    case 'ipv4-compatible':
    case 'ipv4-translated':
    case 'nat64':
      at(embeds, 12, 13, 14, 15);
      break;
    case 'nat64-local': {
      // A shorter format is read only where its `u` octet and suffix are zero, as RFC 6052
      // requires of them: otherwise a /96 address would read as 0.0.0.0 in the /48 position.
      const zeroFrom = (from: number) => bytes[8] === 0 && bytes.subarray(from).every((b) => b === 0);
      if (zeroFrom(11)) at(embeds, 6, 7, 9, 10);
      if (zeroFrom(12)) at(embeds, 7, 9, 10, 11);
      if (zeroFrom(13)) at(embeds, 9, 10, 11, 12);
      at(embeds, 12, 13, 14, 15);
      break;
    }
    case '6to4':
      at(embeds, 2, 3, 4, 5);
      break;
    case 'teredo':
      at(embeds, 4, 5, 6, 7);
      found.push({ form: 'teredo', bytes: bytes.slice(12, 16).map((b) => b ^ 0xff) });
      break;
    case undefined:
      break;
  }
  if ((bytes[8]! & 0xfc) === 0 && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe)
    at('isatap', 12, 13, 14, 15);
  return found;
}
