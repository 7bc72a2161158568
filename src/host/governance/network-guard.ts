import { lookup } from 'node:dns/promises';
import type { GovernanceConfig } from '../../core/config/governance-config.js';
import { SwitchboardError } from '../../core/errors.js';
import { decideNetwork } from '../../policy/network.js';

/**
 * Guards servers registered at run time (through the API or by an agent) against SSRF: the
 * URL's host is resolved and every address it resolves to is judged by the network policy.
 * Private and loopback addresses are allowed in the interactive profile unless the settings
 * say otherwise; metadata and link-local ones never are. Servers in config files are exempt:
 * a person wrote them.
 */
export async function checkUpstreamUrl(url: string, settings: GovernanceConfig): Promise<void> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new SwitchboardError('CONFIG_INVALID', `"${url}" is not a URL; give a full http(s):// URL.`);
  }
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch (error) {
    throw new SwitchboardError(
      'CONNECT_FAILED',
      `Cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}. Check the URL.`,
      { cause: error },
    );
  }
  const decision = decideNetwork(url, addresses, {
    ...(settings.network.allowedHosts && { allowedHosts: settings.network.allowedHosts }),
    allowPrivate: settings.network.allowPrivate ?? settings.profile === 'interactive',
  });
  if (!decision.allowed) {
    throw new SwitchboardError(
      'POLICY_DENIED',
      `Registering ${url} is refused: ${decision.reason} (governance.network).`,
      { details: { url, reason: decision.reason } },
    );
  }
}
