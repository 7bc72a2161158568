import type { FilteredNetwork, SandboxHost } from '../core/config/sandbox-network.js';
import { type AddressVerdict, inspectAddress } from './address-class.js';
import { parseIpAddress } from './ip-address.js';
import { describeAddress } from './network.js';

/**
 * Where a sandboxed server with a filtered network (`sandbox.network` "loopback" or
 * `{ loopback, hosts }`) may connect through the proxy its host runs. Pure: the proxy parses
 * the destination (its host spelled as a URL spells it, so every IPv4 form is dotted), resolves
 * a name in the host, and passes every address here; the one to connect to comes back, so no
 * second resolution can rebind between the check and the connect.
 *
 * A name is resolved only when it is listed for the port (or is `localhost` and the loopback is
 * granted): resolving any name the server asks for would let it send data out in DNS queries
 * (`<secret>.attacker.example`), which no allow-list would see.
 *
 * Rules, in order:
 *  1. An IP address listed in `hosts` with this port is allowed (a person named it); a name
 *     neither listed for the port nor `localhost` with the loopback granted is refused unresolved.
 *  2. Every address is judged (one refused address refuses the destination: a name that
 *     resolves to a public and a private address is rebinding bait):
 *     - loopback (127/8, ::1, and the IPv6 forms that embed them): only where `loopback` grants
 *       the port (`any`, or the port listed);
 *     - otherwise the host must be listed for the port (a bare name: 443 and 80), and its
 *       address public, or private with `allowPrivate`; metadata, link-local, unspecified
 *       (0.0.0.0 reaches this machine), multicast and reserved addresses are always refused.
 */
export interface DestinationDecision {
  readonly allowed: boolean;
  /** One sentence: what was decided and why, and when refused, what to change. */
  readonly reason: string;
  /** The address to connect to (allowed only). */
  readonly address?: string;
}

/** A destination as the proxy parsed it. */
export interface Destination {
  /** Lower case, as a URL spells it; an IP address unbracketed. */
  readonly host: string;
  readonly port: number;
}

const ALWAYS_REFUSED = new Set(['metadata', 'link-local', 'unspecified', 'multicast', 'reserved']);

/** Whether the proxy may resolve the destination's name (only to then judge its addresses). */
export function resolvesName(network: FilteredNetwork, destination: Destination): boolean {
  if (parseIpAddress(destination.host) !== undefined) return false;
  return listedRule(network, destination) !== undefined || localLoopbackName(network, destination.host);
}

/** The judge of a filtered sandbox network, as the proxy takes it. */
export const sandboxDestinations = { resolvesName, decide: decideSandboxDestination } as const;

/** Decides one destination of a filtered sandbox network. */
export function decideSandboxDestination(
  network: FilteredNetwork,
  destination: Destination,
  addresses: readonly string[],
): DestinationDecision {
  const { host, port } = destination;
  const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    return refuse(`${target} has no valid port (1–65535)`);
  const literal = parseIpAddress(host) !== undefined;
  const rule = listedRule(network, destination);
  if (literal && rule)
    return { allowed: true, address: host, reason: `${target} is listed in sandbox.network.hosts` };
  if (!literal && !rule && !localLoopbackName(network, host)) return refuse(notListed(network, host, port));
  const candidates = literal ? [host] : addresses;
  if (candidates.length === 0) return refuse(`${host} resolved to no address`);
  for (const address of candidates) {
    const verdict = inspectAddress(address);
    if (!verdict) return refuse(`${host} resolved to "${address}", which is not an IP address`);
    const refusal = judgeAddress(network, destination, address, verdict, rule);
    if (refusal) return refuse(refusal);
  }
  const address = candidates[0]!;
  const how = rule
    ? `listed in sandbox.network.hosts${rule.text === target ? '' : ` (as "${rule.text}")`}`
    : 'the host’s loopback, granted by sandbox.network.loopback';
  return { allowed: true, address, reason: `${target} is ${how}; connecting to ${address}` };
}

/** Why `address` may not be connected to, or undefined when it may. */
function judgeAddress(
  network: FilteredNetwork,
  { host, port }: Destination,
  address: string,
  verdict: AddressVerdict,
  rule: SandboxHost | undefined,
): string | undefined {
  const what = describeAddress(host, address, verdict);
  if (verdict.class === 'loopback') {
    const { loopback } = network;
    if (loopback === 'any' || (loopback !== 'none' && loopback.includes(port))) return undefined;
    return loopback === 'none'
      ? `${what}; the sandbox may not reach the host's loopback. Grant it with "network": { "loopback": [${port}] }`
      : `${what}, on port ${port}; sandbox.network.loopback grants only port${loopback.length > 1 ? 's' : ''} ${loopback.join(', ')}. Add ${port} there to allow it`;
  }
  if (ALWAYS_REFUSED.has(verdict.class))
    return `${what}; a sandbox never reaches such an address through its proxy`;
  if (!rule) return notListed(network, host, port);
  if (verdict.class === 'private' && !network.allowPrivate)
    return `${what}; a listed name may not resolve to a private address unless sandbox.network.allowPrivate is true`;
  return undefined;
}

function listedRule(network: FilteredNetwork, { host, port }: Destination): SandboxHost | undefined {
  return network.hosts.find((h) => hostMatches(host, h.host) && h.ports.includes(port));
}

/** `localhost` (RFC 6761 §6.3: always the loopback) where the loopback is granted. */
function localLoopbackName(network: FilteredNetwork, host: string): boolean {
  return network.loopback !== 'none' && (host === 'localhost' || host.endsWith('.localhost'));
}

function notListed(network: FilteredNetwork, host: string, port: number): string {
  const ports = [...new Set(network.hosts.filter((h) => hostMatches(host, h.host)).flatMap((h) => h.ports))];
  if (ports.length > 0) {
    return `${host} is listed in sandbox.network.hosts for port${ports.length > 1 ? 's' : ''} ${ports.join(', ')} only, not ${port}. List "${host}:${port}" to allow it`;
  }
  return `${host} is not listed in sandbox.network.hosts. Add "${host}${port === 443 || port === 80 ? '' : `:${port}`}" there to allow it`;
}

function refuse(reason: string): DestinationDecision {
  return { allowed: false, reason: `${reason}; refused.` };
}

/** `host` against a listed host: equal (the same address in any spelling), or under a `*.` wildcard (its apex too). */
function hostMatches(host: string, listed: string): boolean {
  if (listed.startsWith('*.')) {
    const apex = listed.slice(2);
    return host === apex || host.endsWith(`.${apex}`);
  }
  if (host === listed) return true;
  const a = parseIpAddress(host);
  const b = parseIpAddress(listed);
  return !!a && !!b && a.family === b.family && a.bytes.every((byte, i) => byte === b.bytes[i]);
}
