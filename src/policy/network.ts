import { type AddressVerdict, inspectAddress } from './address-class.js';
import type { AddressClass } from './address-ranges.js';
import { parseIpAddress } from './ip-address.js';

/**
 * Which addresses a server registered at run time may be reached at. An agent that can register
 * servers could point one at the cloud metadata service or a service on the private network
 * (SSRF), so such addresses are refused unless allowed. Pure: the caller resolves the host name
 * and passes every address in; the decision and its reason (what was decided, and why) come
 * back. Checked at registration and again at every connect, against the address connected to.
 *
 * Rules, in order:
 *  1. A host listed in `allowedHosts` is allowed whatever it resolves to (a person said so).
 *  2. With `allowedHosts` set, every other host is refused.
 *  3. Every address is classified (address-class.ts); one refused address refuses the host (a
 *     name resolving to a public and a private address is rebinding bait). Metadata,
 *     link-local, unspecified, multicast and reserved addresses are always refused; loopback
 *     and private ones unless `allowPrivate` (default: allowed in the interactive profile only).
 */
export interface NetworkPolicy {
  /** Host names (or `*.example.com` patterns, or IP addresses) reached whatever they resolve to. */
  readonly allowedHosts?: readonly string[];
  /** Allow loopback and private addresses (a developer's own machine and LAN). */
  readonly allowPrivate?: boolean;
  /** The governance profile; where `allowPrivate` is unset, `interactive` allows private addresses. */
  readonly profile?: string;
}

/**
 * What was decided: `public` (every address public), `private-allowed` (a loopback or private
 * address, allowed here), `listed` (in allowedHosts), `not-listed` (allowedHosts is set and the
 * host is not in it), `refused` (an address of a refused class), `invalid` (no URL or address).
 */
export type NetworkOutcome = 'public' | 'private-allowed' | 'listed' | 'not-listed' | 'refused' | 'invalid';

export interface NetworkDecision {
  readonly allowed: boolean;
  readonly outcome: NetworkOutcome;
  /** One sentence: what was decided, why, and (when refused) what to do. */
  readonly reason: string;
  readonly host?: string;
  /** The address that decided: the first refused one, or the first private one allowed. */
  readonly address?: string;
  readonly verdict?: AddressVerdict;
}

const SETTING = 'governance.network';
const ALWAYS_REFUSED: ReadonlySet<AddressClass> = new Set([
  'metadata',
  'link-local',
  'unspecified',
  'multicast',
  'reserved',
]);

const NOUN: Record<AddressClass, string> = {
  public: 'a public address',
  private: 'a private address',
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Decides whether `url`, whose host resolves to `addresses`, may be reached under `policy`. */
export function decideNetwork(
  url: string,
  addresses: readonly string[],
  policy: NetworkPolicy = {},
): NetworkDecision {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid(`"${url}" is not a URL; give a full http(s):// URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return invalid(`${parsed.protocol} URLs cannot be reached; give an http(s):// URL`);
  return decideHost(parsed.hostname, addresses, policy);
}

/**
 * Decides whether `host` may be connected to at `addresses` (all it resolved to; for an IP
 * literal, the literal itself or nothing).
 */
export function decideHost(
  rawHost: string,
  addresses: readonly string[],
  policy: NetworkPolicy = {},
): NetworkDecision {
  const host = normalizeHost(rawHost);
  const listed = (policy.allowedHosts ?? []).find((pattern) => hostMatches(host, pattern));
  if (listed !== undefined) {
    return {
      allowed: true,
      outcome: 'listed',
      host,
      reason: `${host} is listed in ${SETTING}.allowedHosts${listed === host ? '' : ` (as "${listed}")`}; allowed whatever it resolves to.`,
    };
  }
  if (policy.allowedHosts && policy.allowedHosts.length > 0) {
    return {
      allowed: false,
      outcome: 'not-listed',
      host,
      reason: `${host} is not listed in ${SETTING}.allowedHosts, which admits only the hosts it names; refused. Add it there to allow it.`,
    };
  }
  const candidates = addresses.length > 0 ? addresses : parseIpAddress(host) ? [host] : [];
  if (candidates.length === 0) return { ...invalid(`${host} resolved to no address; refused`), host };
  const allowPrivate = policy.allowPrivate ?? policy.profile === 'interactive';
  let allowedPrivate: { address: string; verdict: AddressVerdict } | undefined;
  for (const address of candidates) {
    const verdict = inspectAddress(address);
    if (!verdict)
      return { ...invalid(`${host} resolved to "${address}", which is not an IP address; refused`), host };
    const what = describeAddress(host, address, verdict);
    if (ALWAYS_REFUSED.has(verdict.class)) {
      return {
        allowed: false,
        outcome: 'refused',
        host,
        address,
        verdict,
        reason: `${what}; refused. List the host in ${SETTING}.allowedHosts only if you mean it.`,
      };
    }
    if (verdict.class === 'private' || verdict.class === 'loopback') {
      if (!allowPrivate) {
        return {
          allowed: false,
          outcome: 'refused',
          host,
          address,
          verdict,
          reason: `${what}; refused: ${privateRule(policy, false)}. Set ${SETTING}.allowPrivate to true, or list the host in ${SETTING}.allowedHosts.`,
        };
      }
      allowedPrivate ??= { address, verdict };
    }
  }
  if (allowedPrivate) {
    return {
      allowed: true,
      outcome: 'private-allowed',
      host,
      ...allowedPrivate,
      reason: `${describeAddress(host, allowedPrivate.address, allowedPrivate.verdict)}; allowed: ${privateRule(policy, true)}.`,
    };
  }
  const shown = candidates.slice(0, 3).join(', ') + (candidates.length > 3 ? ', …' : '');
  const subject =
    candidates.length === 1 && sameAddress(candidates[0]!, host) ? shown : `${host} resolves to ${shown}`;
  return {
    allowed: true,
    outcome: 'public',
    host,
    reason: `${subject}: ${candidates.length === 1 ? 'a public address' : 'all public addresses'}; allowed.`,
  };
}

/** "evil.test resolves to ::ffff:a9fe:a9fe, which embeds 169.254.169.254 (IPv4-mapped), a cloud metadata address (…)". */
export function describeAddress(host: string, address: string, verdict: AddressVerdict): string {
  const subject = sameAddress(address, host) ? address : `${host} resolves to ${address}`;
  const embedded = verdict.embedded
    ? `, which embeds ${verdict.embedded.ipv4} (${verdict.embedded.form}),`
    : ',';
  // A metadata row is one address: its name says whose service it is.
  const range =
    !verdict.range || verdict.class === 'public'
      ? ''
      : verdict.class === 'metadata'
        ? ` (${verdict.range.name})`
        : ` (${verdict.range.cidr}: ${verdict.range.name})`;
  return `${subject}${embedded} ${NOUN[verdict.class]}${range}`;
}

/** Why private addresses are (not) allowed: the setting, or the profile's default. */
function privateRule(policy: NetworkPolicy, allowed: boolean): string {
  if (policy.allowPrivate !== undefined)
    return `${SETTING}.allowPrivate is ${policy.allowPrivate ? 'true' : 'false'}`;
  if (allowed)
    return `the interactive profile allows private addresses by default (set ${SETTING}.allowPrivate to false to refuse them)`;
  return policy.profile === undefined
    ? 'private addresses are refused by default'
    : `the ${policy.profile} profile refuses private addresses by default`;
}

function invalid(reason: string): NetworkDecision {
  return { allowed: false, outcome: 'invalid', reason };
}

/** Lower case, without brackets or one trailing dot (`Example.COM.` is `example.com`). */
function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** A pattern as a URL would spell its host (IDN to punycode, IPv4 forms to dotted), else as written. */
function normalizePattern(pattern: string): string {
  const wildcard = pattern.startsWith('*.');
  const body = wildcard ? pattern.slice(2) : pattern;
  let host = body;
  try {
    const bracketed = body.includes(':') && !body.startsWith('[') ? `[${body}]` : body;
    host = new URL(`http://${bracketed}/`).hostname;
  } catch {
    // Not a valid host: compared as written, so it matches nothing a URL yields.
  }
  return (wildcard ? '*.' : '') + normalizeHost(host);
}

function hostMatches(host: string, rawPattern: string): boolean {
  const pattern = normalizePattern(rawPattern);
  if (pattern.startsWith('*.')) {
    const apex = pattern.slice(2);
    return host === apex || host.endsWith(`.${apex}`);
  }
  return host === pattern || sameAddress(host, pattern);
}

/** Whether two texts spell the same IP address (`::1` and `0:0::1`). */
function sameAddress(a: string, b: string): boolean {
  const x = parseIpAddress(a);
  const y = parseIpAddress(b);
  return !!x && !!y && x.family === y.family && x.bytes.every((byte, i) => byte === y.bytes[i]);
}
