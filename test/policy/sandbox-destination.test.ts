import { describe, expect, it } from 'vitest';
import { parseConnectTarget } from '../../src/client/sandbox/proxy-target.js';
import {
  type FilteredNetwork,
  normalizeSandboxNetwork,
  parseHostEntry,
  sandboxNetworkSchema,
} from '../../src/core/config/sandbox-network.js';
import { decideSandboxDestination } from '../../src/policy/sandbox-destination.js';

/**
 * Where a sandbox with a filtered network may connect through its proxy: the destination as
 * the proxy parses it (every IPv4 spelling dotted), the addresses a name resolves to in the
 * host, and the grants of the profile.
 */
function network(raw: unknown): FilteredNetwork {
  const n = normalizeSandboxNetwork(sandboxNetworkSchema.parse(raw));
  if (n.kind !== 'filtered') throw new Error(`not filtered: ${JSON.stringify(raw)}`);
  return n;
}

/** Decides `CONNECT authority` as the proxy would: parsed, then judged with `addresses` for a name. */
function decide(net: FilteredNetwork, authority: string, addresses: readonly string[] = []) {
  const parsed = parseConnectTarget(authority);
  if (!parsed.ok) return { allowed: false, reason: parsed.reason };
  return decideSandboxDestination(net, parsed.target, addresses);
}

const GITHUB = network({ hosts: ['api.github.com', '*.githubusercontent.com', 'example.org:8443'] });

describe('the allow-list', () => {
  it('allows a listed name on 443 and 80 at a public address, and connects to the address judged', () => {
    expect(decide(GITHUB, 'api.github.com:443', ['140.82.112.6'])).toMatchObject({
      allowed: true,
      address: '140.82.112.6',
    });
    expect(decide(GITHUB, 'API.GitHub.com.:80', ['140.82.112.6']).allowed).toBe(true);
    expect(decide(GITHUB, 'raw.githubusercontent.com:443', ['185.199.108.133']).allowed).toBe(true);
    expect(decide(GITHUB, 'example.org:8443', ['93.184.216.34']).allowed).toBe(true);
  });

  it('refuses a listed host on another port, saying which ports it is listed for', () => {
    const other = decide(GITHUB, 'api.github.com:22', ['140.82.112.6']);
    expect(other.allowed).toBe(false);
    expect(other.reason).toMatch(/listed in sandbox\.network\.hosts for ports 443, 80 only, not 22/);
    expect(decide(GITHUB, 'example.org:443', ['93.184.216.34']).reason).toMatch(/for port 8443 only/);
  });

  it('refuses what is not listed, with the entry to add', () => {
    const refused = decide(GITHUB, 'evil.test:443', ['93.184.216.34']);
    expect(refused.allowed).toBe(false);
    expect(refused.reason).toMatch(/evil\.test is not listed in sandbox\.network\.hosts\. Add "evil\.test"/);
    // A suffix that is not a subdomain, and the wildcard's look-alikes.
    expect(decide(GITHUB, 'notgithubusercontent.com:443', ['1.1.1.1']).allowed).toBe(false);
    expect(decide(GITHUB, 'api.github.com.evil.test:443', ['1.1.1.1']).allowed).toBe(false);
  });

  it('refuses a listed name that resolves to a private, loopback, metadata or mixed set of addresses (rebinding)', () => {
    const cases: [string[], RegExp][] = [
      [['10.0.0.5'], /private address.*allowPrivate/],
      [['127.0.0.1'], /loopback address.*the sandbox may not reach the host's loopback/],
      [['::1'], /loopback/],
      [['169.254.169.254'], /cloud metadata/],
      [['::ffff:169.254.169.254'], /metadata/],
      [['fe80::1'], /link-local/],
      [['0.0.0.0'], /unspecified/],
      // One bad address in the answer refuses the name: the socket could be steered to it.
      [['140.82.112.6', '127.0.0.1'], /loopback/],
      [['140.82.112.6', '192.168.1.1'], /private/],
    ];
    for (const [addresses, reason] of cases) {
      const decision = decide(GITHUB, 'api.github.com:443', addresses);
      expect(decision.allowed, addresses.join()).toBe(false);
      expect(decision.reason).toMatch(reason);
    }
    // A name made to resolve to loopback (127.0.0.1.nip.io and the like) under a listed wildcard.
    const wildcard = network({ hosts: ['*.nip.io'] });
    expect(decide(wildcard, '127.0.0.1.nip.io:443', ['127.0.0.1']).allowed).toBe(false);
    expect(decide(GITHUB, 'api.github.com:443', []).reason).toMatch(/resolved to no address/);
  });

  it('lets a listed name resolve to a private address only with allowPrivate; metadata never', () => {
    const lan = network({ hosts: ['git.corp.example'], allowPrivate: true });
    expect(decide(lan, 'git.corp.example:443', ['10.1.2.3']).allowed).toBe(true);
    expect(decide(lan, 'git.corp.example:443', ['169.254.169.254']).allowed).toBe(false);
    expect(decide(lan, 'git.corp.example:443', ['127.0.0.1']).allowed).toBe(false);
  });

  it('allows an IP address listed with its port in any spelling, and nothing else at that address', () => {
    const literal = network({ hosts: ['10.0.0.7:5432'] });
    for (const spelling of ['10.0.0.7', '0xa.0.0.7', '167772167', '012.0.0.7', '10.7'])
      expect(decide(literal, `${spelling}:5432`).allowed, spelling).toBe(true);
    // Its IPv6-mapped form is another listing (refused, the safe way round).
    expect(decide(literal, '[::ffff:10.0.0.7]:5432').allowed).toBe(false);
    expect(decide(literal, '10.0.0.7:22').allowed).toBe(false);
    expect(decide(literal, '10.0.0.8:5432').allowed).toBe(false);
  });
});

describe('the host’s loopback', () => {
  const LOOPBACK_SPELLINGS = [
    '127.0.0.1',
    '127.1',
    '0x7f.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '017700000001',
    '127.0.0.1.',
    '127.255.255.254',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
  ];

  it('"loopback" reaches every port of it, in every spelling, and localhost as the host resolves it', () => {
    const any = network('loopback');
    for (const spelling of LOOPBACK_SPELLINGS)
      expect(decide(any, `${spelling}:6379`).allowed, spelling).toBe(true);
    expect(decide(any, 'localhost:8080', ['127.0.0.1', '::1'])).toMatchObject({
      allowed: true,
      address: '127.0.0.1',
    });
  });

  it('refuses everything that is not the loopback: other addresses, 0.0.0.0, metadata, names', () => {
    const any = network('loopback');
    for (const target of [
      '192.0.2.1:80',
      '10.0.0.1:80',
      '0.0.0.0:8080',
      '[::]:8080',
      '169.254.169.254:80',
      '0xa9fea9fe:80',
    ])
      expect(decide(any, target).allowed, target).toBe(false);
    expect(decide(any, 'example.com:443', ['93.184.216.34']).reason).toMatch(/not listed/);
  });

  it('with listed ports, reaches those ports only', () => {
    const ports = network({ loopback: [5432, 6379] });
    expect(decide(ports, '127.0.0.1:5432').allowed).toBe(true);
    expect(decide(ports, '0x7f.1:6379').allowed).toBe(true);
    const other = decide(ports, '127.0.0.1:22');
    expect(other.allowed).toBe(false);
    expect(other.reason).toMatch(/grants only ports 5432, 6379\. Add 22 there/);
  });

  it('is refused to a profile that lists hosts only', () => {
    for (const spelling of LOOPBACK_SPELLINGS) {
      const decision = decide(GITHUB, `${spelling}:443`);
      expect(decision.allowed, spelling).toBe(false);
      expect(decision.reason).toMatch(/may not reach the host's loopback/);
    }
  });
});

describe('the network field', () => {
  it('normalizes the shorthands and the object, and refuses what names no host', () => {
    expect(normalizeSandboxNetwork(sandboxNetworkSchema.parse('none'))).toEqual({ kind: 'none' });
    expect(normalizeSandboxNetwork(sandboxNetworkSchema.parse('host'))).toEqual({ kind: 'host' });
    expect(network('loopback')).toMatchObject({ loopback: 'any', hosts: [] });
    expect(normalizeSandboxNetwork(sandboxNetworkSchema.parse({}))).toEqual({ kind: 'none' });
    expect(parseHostEntry('API.Example.COM:8443')).toMatchObject({ host: 'api.example.com', ports: [8443] });
    expect(parseHostEntry('[::1]:8080')).toMatchObject({ host: '::1', ports: [8080] });
    expect(parseHostEntry('0x7f.1')).toMatchObject({ host: '127.0.0.1', ports: [443, 80] });
    for (const bad of [
      '',
      'http://x.test',
      'user@x.test',
      'x.test:0',
      'x.test:70000',
      '*.10.0.0.1',
      'a b',
      'x.test/path',
    ])
      expect(sandboxNetworkSchema.safeParse({ hosts: [bad] }).success, bad).toBe(false);
  });
});
