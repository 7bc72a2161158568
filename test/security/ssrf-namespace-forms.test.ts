import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/policy/address-class.js';
import { namespaceSupport, type ProbeReport, runProbe } from './support/namespace.js';

/**
 * End to end, in a network namespace of its own (support/ssrf-probe.ts "forms"): registrations
 * restored from the store point at loopback, private, metadata and unspecified addresses in
 * every spelling (IP literals, short and numeric IPv4 forms, IPv4-mapped, NAT64, 6to4, Teredo,
 * names resolving to them, HTTP+SSE, OAuth discovery URLs a server hands over). The metadata
 * and private addresses are put on the namespace's loopback behind a counting trap, so a connect
 * that got through would be seen there; nothing can reach beyond the namespace.
 */
const support = namespaceSupport();
if (!support.flags)
  console.warn(`SSRF namespace probes SKIPPED: network namespaces are unavailable here (${support.reason}).`);

type Outcome = { state: string; code?: string; message?: string };

describe('SSRF: every address form is refused at connect, before any socket opens', () => {
  if (!support.flags) {
    it.skip(`SKIPPED: network namespaces are unavailable here (${support.reason})`, () => {});
    return;
  }
  let report: ProbeReport | undefined;
  const probe = async () => {
    report ??= await runProbe(support.flags!, 'forms');
    return report as {
      restored: Record<string, Outcome>;
      registered: Record<string, string>;
      trapSeen: string[];
      baitSeen: string[];
      lookups: string[];
    };
  };

  it('connects the one public registration and refuses every other, with the reason', {
    timeout: 120_000,
  }, async () => {
    const { restored } = await probe();
    expect(restored.good?.state).toBe('connected');
    const refused = Object.entries(restored).filter(([name]) => name !== 'good');
    expect(refused.length).toBeGreaterThan(35);
    for (const [name, outcome] of refused) {
      expect([name, outcome.state, outcome.code]).toEqual([name, 'failed', 'POLICY_DENIED']);
      expect(outcome.message).toMatch(/; refused[.:] /);
    }
    expect(restored['lit-mapped-metadata']?.message).toContain(
      'which embeds 169.254.169.254 (IPv4-mapped), a cloud metadata address',
    );
    expect(restored['name-mixed']?.message).toContain('mixed.test resolves to 169.254.169.254');
  });

  it('refuses the same URLs when they are registered', { timeout: 120_000 }, async () => {
    const { registered } = await probe();
    expect(Object.keys(registered).length).toBeGreaterThan(35);
    for (const [name, code] of Object.entries(registered))
      expect([name, code]).toEqual([name, 'POLICY_DENIED']);
  });

  it('let no connection reach anything but the public address', { timeout: 120_000 }, async () => {
    const { trapSeen, baitSeen } = await probe();
    expect(trapSeen.length).toBeGreaterThan(0);
    expect(baitSeen.length).toBeGreaterThan(0);
    for (const address of [...trapSeen, ...baitSeen])
      expect([address, classifyAddress(address)]).toEqual([address, 'public']);
  });

  it('refuses the OAuth URLs a server hands over: its resource metadata and authorization servers', {
    timeout: 120_000,
  }, async () => {
    const { restored } = await probe();
    expect(restored['oauth-resource-metadata']?.message).toContain('Connecting to 169.254.169.254');
    expect(restored['oauth-authorization-server']?.message).toContain(
      'meta.test resolves to 169.254.169.254',
    );
    expect(restored['oauth-mapped']?.message).toContain('which embeds 169.254.169.254');
  });
});
