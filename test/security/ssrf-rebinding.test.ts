import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/policy/address-class.js';
import { namespaceSupport, runProbe } from './support/namespace.js';

/**
 * DNS rebinding, end to end in a network namespace of its own (support/ssrf-probe.ts
 * "rebinding"): a registered name first answers a public address (put on the namespace's
 * loopback), then loopback or the metadata address. The check holds at the connect that would
 * use the bad address — a reload's, a reconnect's after the socket dropped mid-session, a
 * restart's — against the address the socket connects to; the trap behind every address
 * shows that only the public one was ever connected to.
 */
const support = namespaceSupport();
if (!support.flags)
  console.warn(`SSRF rebinding probes SKIPPED: network namespaces are unavailable here (${support.reason}).`);

type Outcome = { state: string; code?: string; message?: string };
type Step = { step: string; trapSeen: string[] } & Record<string, unknown>;

describe('SSRF: DNS rebinding is refused at every connect', () => {
  if (!support.flags) {
    it.skip(`SKIPPED: network namespaces are unavailable here (${support.reason})`, () => {});
    return;
  }

  it('refuses the reload, the reconnect and the restart that would use the rebound address', {
    timeout: 120_000,
  }, async () => {
    const report = (await runProbe(support.flags!, 'rebinding')) as { events: Step[]; trapSeen: string[] };
    const step = (name: string) => report.events.find((e) => e.step === name)!;

    expect(step('connected at the public address').trapSeen.length).toBeGreaterThan(0);

    const reload = step('reload after rebinding to loopback').rebind as Outcome;
    expect(reload).toMatchObject({ state: 'failed', code: 'POLICY_DENIED' });
    expect(reload.message).toContain('rebind.test resolves to 127.0.0.1, a loopback address');

    const rounds = step('alternating reloads').rounds as (Outcome & { bad: boolean })[];
    expect(rounds).toHaveLength(6);
    for (const round of rounds) {
      expect(round).toMatchObject(
        round.bad ? { state: 'failed', code: 'POLICY_DENIED' } : { state: 'connected' },
      );
    }

    const mid = step('mid-session rebinding');
    expect(mid.call).not.toBe('answered');
    expect(mid.swap).toMatchObject({ state: 'failed', code: 'POLICY_DENIED' });
    expect((mid.swap as Outcome).message).toContain('which embeds 169.254.169.254 (IPv4-mapped)');
    expect(mid.lookups).toBeGreaterThan(0);

    const restart = step('restart');
    expect(restart.rebind).toMatchObject({ state: 'failed', code: 'POLICY_DENIED' });
    expect(restart.swap).toMatchObject({ state: 'failed', code: 'POLICY_DENIED' });

    // Every connection of the whole run went to the public address.
    expect(report.trapSeen.length).toBeGreaterThan(0);
    for (const address of report.trapSeen)
      expect([address, classifyAddress(address)]).toEqual([address, 'public']);
  });
});
