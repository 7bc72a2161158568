import {
  type AddressJudge,
  type AddressResolver,
  createNetworkGuard,
  type NetworkGuard,
} from '../../client/transports/guarded-fetch.js';
import type { GovernanceConfig } from '../../core/config/governance-config.js';
import { SwitchboardError } from '../../core/errors.js';
import { parseIpAddress } from '../../policy/ip-address.js';
import { decideHost, decideNetwork, type NetworkDecision, type NetworkPolicy } from '../../policy/network.js';

/**
 * The SSRF guard of servers registered at run time (the HTTP API, JSON-lines `mcp_set`, an
 * agent's `register_mcp`, and those registrations restored from the store): their URLs are
 * judged by the network policy (policy/network.ts) under `governance.network` and the
 * profile — once when registered, for a clear answer to whoever registers, and then at every
 * connect, against the addresses the socket connects to (guarded-fetch.ts): reconnects,
 * reloads, redirects and the OAuth URLs a server hands us included. Servers in config files
 * are exempt: a person wrote them.
 */

/** The network policy of the governance settings. */
export function networkPolicyOf(settings: GovernanceConfig): NetworkPolicy {
  return {
    ...(settings.network.allowedHosts && { allowedHosts: settings.network.allowedHosts }),
    ...(settings.network.allowPrivate !== undefined && { allowPrivate: settings.network.allowPrivate }),
    profile: settings.profile,
  };
}

/** The judge of every connect a guarded server makes: POLICY_DENIED with the reason, or nothing. */
export function networkJudge(settings: GovernanceConfig): AddressJudge {
  const policy = networkPolicyOf(settings);
  return (host, addresses) => {
    const decision = decideHost(host, addresses, policy);
    return decision.allowed
      ? undefined
      : refusal(`Connecting to ${decision.host ?? host}`, decision, { host });
  };
}

/** The guard of the connections of guarded servers: every new socket judged. */
export function guardFor(
  settings: GovernanceConfig,
  options: { readonly resolve?: AddressResolver } = {},
): NetworkGuard {
  return createNetworkGuard({
    judge: networkJudge(settings),
    ...(options.resolve && { resolve: options.resolve }),
  });
}

/**
 * Checks a URL being registered: its host is resolved and every address judged. POLICY_DENIED
 * when refused, CONFIG_INVALID for no URL, CONNECT_FAILED when the name does not resolve.
 */
export async function checkUpstreamUrl(
  url: string,
  settings: GovernanceConfig,
  resolve: AddressResolver,
): Promise<void> {
  const policy = networkPolicyOf(settings);
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new SwitchboardError('CONFIG_INVALID', `"${url}" is not a URL; give a full http(s):// URL.`);
  }
  // An IP literal is its own address; with allowedHosts the name alone decides.
  const resolves = parseIpAddress(host) === undefined && !policy.allowedHosts?.length;
  let addresses: readonly string[] = [];
  if (resolves) {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch (error) {
      throw new SwitchboardError(
        'CONNECT_FAILED',
        `Cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}. Check the URL.`,
        { cause: error, details: { url } },
      );
    }
  }
  const decision = decideNetwork(url, addresses, policy);
  if (!decision.allowed) throw refusal(`Registering ${url}`, decision, { url });
}

function refusal(what: string, decision: NetworkDecision, details: Record<string, string>): SwitchboardError {
  return new SwitchboardError('POLICY_DENIED', `${what}: ${decision.reason}`, {
    details: {
      ...details,
      reason: decision.reason,
      outcome: decision.outcome,
      setting: 'governance.network',
      ...(decision.address !== undefined && { address: decision.address }),
      ...(decision.verdict && {
        addressClass: decision.verdict.class,
        ...(decision.verdict.range && { range: decision.verdict.range.cidr }),
        ...(decision.verdict.embedded && { embeddedIpv4: decision.verdict.embedded.ipv4 }),
      }),
    },
  });
}
