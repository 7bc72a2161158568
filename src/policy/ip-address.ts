/**
 * IP addresses as bytes: 4 for IPv4, 16 for IPv6. Classifying an address by its text invites
 * every spelling that text patterns miss (`::ffff:a9fe:a9fe` is `169.254.169.254`), so the
 * network policy parses first and judges the bytes. Pure, no I/O.
 *
 * IPv4 is read as the WHATWG URL host parser reads it (and as `inet_aton(3)`, which system
 * resolvers use): one to four parts, each decimal, octal (leading `0`) or hex (`0x`), the last
 * part filling the remaining bytes — so `0x7f.1`, `2130706433` and `017700000001` are all
 * 127.0.0.1. IPv6 is RFC 4291 §2.2 text: eight groups, one `::`, an optional dotted IPv4 tail;
 * brackets and an RFC 6874 zone (`%eth0`, or `%25eth0` as a URL writes it) are accepted and the
 * zone kept aside.
 */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** The zone of a scoped IPv6 address (`fe80::1%eth0` → `eth0`). */
  readonly zone?: string;
}

/** The address `text` spells, or undefined when it is not an IP address (a host name, garbage). */
export function parseIpAddress(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes(':')) return parseIpv6(bare);
  const bytes = parseIpv4(bare);
  return bytes && { family: 4, bytes };
}

/** Dotted-quad text of four bytes. */
export function formatIpv4(bytes: Uint8Array): string {
  return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
}

/**
 * The WHATWG URL Standard's IPv4 parser (§3.5 "IPv4 parser"): undefined where it fails. A
 * trailing dot is allowed, as there.
 */
export function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIpv4Number(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return new Uint8Array([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

const DIGITS: Record<number, RegExp> = { 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-f]+$/i };

function parseIpv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) {
    radix = 16;
    digits = part.slice(2);
  } else if (part.length > 1 && part.startsWith('0')) {
    radix = 8;
    digits = part.slice(1);
  }
  if (digits === '') return 0;
  if (!DIGITS[radix]!.test(digits)) return undefined;
  // Anything past 2^32 is refused by the caller; very long inputs only grow, never wrap.
  return Number.parseInt(digits, radix);
}

function parseIpv6(text: string): IpAddress | undefined {
  let body = text;
  let zone: string | undefined;
  const percent = body.indexOf('%');
  if (percent >= 0) {
    zone = body.slice(percent + 1);
    body = body.slice(0, percent);
    // RFC 6874 §2: inside a URL the `%` of the zone is written `%25`.
    if (zone.startsWith('25') && zone.length > 2) zone = zone.slice(2);
    if (zone === '') return undefined;
  }
  const groups: number[] = [];
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseDottedQuad(tail);
    if (!v4) return undefined;
    body = `${body.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const head = readGroups(halves[0]!);
  const rest = halves.length === 2 ? readGroups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  if (halves.length === 1 && head.length !== 8) return undefined;
  if (halves.length === 2 && head.length + rest.length > 7) return undefined;
  groups.push(...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest);
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 255;
  });
  return zone === undefined ? { family: 6, bytes } : { family: 6, bytes, zone };
}

/** Colon-separated groups of 1–4 hex digits; '' is no group. */
function readGroups(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  for (const group of text.split(':')) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}

/** Strict dotted-quad (the IPv4 tail of IPv6 text): four decimal parts 0–255, no leading zeros. */
function parseDottedQuad(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    bytes[i] = Number(part);
  }
  return bytes;
}

/** Whether the first `bits` bits of `a` and `b` agree. */
export function prefixMatches(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const spare = bits & 7;
  if (spare === 0) return true;
  const mask = (0xff << (8 - spare)) & 0xff;
  return ((a[whole]! ^ b[whole]!) & mask) === 0;
}
