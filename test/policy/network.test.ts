import { describe, expect, it } from 'vitest';
import { decideHost, decideNetwork } from '../../src/policy/network.js';

describe('decideNetwork', () => {
  it('denies metadata and private addresses by default, with what to do', () => {
    const meta = decideNetwork('http://169.254.169.254/latest', ['169.254.169.254']);
    expect(meta.allowed).toBe(false);
    expect(meta.reason).toMatch(/metadata address .*; refused\. List the host/);
    expect(decideNetwork('http://intranet.corp/mcp', ['10.0.0.5']).allowed).toBe(false);
    expect(decideNetwork('http://127.0.0.1:3000/mcp', []).allowed).toBe(false);
  });

  it('allows private addresses when asked, but never metadata', () => {
    expect(decideNetwork('http://127.0.0.1:3000/mcp', [], { allowPrivate: true }).allowed).toBe(true);
    expect(
      decideNetwork('http://evil.example/mcp', ['169.254.169.254'], { allowPrivate: true }).allowed,
    ).toBe(false);
  });

  it('takes the profile default where allowPrivate is unset, and the setting over it', () => {
    expect(decideHost('localhost', ['127.0.0.1'], { profile: 'interactive' }).allowed).toBe(true);
    expect(decideHost('localhost', ['127.0.0.1'], { profile: 'daemon' }).allowed).toBe(false);
    expect(
      decideHost('localhost', ['127.0.0.1'], { profile: 'interactive', allowPrivate: false }).allowed,
    ).toBe(false);
    expect(decideHost('localhost', ['127.0.0.1'], { profile: 'daemon', allowPrivate: true }).allowed).toBe(
      true,
    );
  });

  it('checks every resolved address (a public name may resolve to a private one)', () => {
    expect(decideNetwork('https://mcp.example.com', ['93.184.216.34', '10.0.0.1']).allowed).toBe(false);
    expect(decideNetwork('https://mcp.example.com', ['93.184.216.34']).allowed).toBe(true);
  });

  it('an allow-list admits only its hosts, patterns, IP forms and trailing dots included', () => {
    const policy = {
      allowedHosts: ['*.example.com', 'internal.local', 'Upper.Example.ORG', '::1', '10.0.0.7'],
    };
    expect(decideNetwork('https://api.example.com/mcp', ['10.0.0.1'], policy).allowed).toBe(true);
    expect(decideNetwork('https://example.com/mcp', ['1.1.1.1'], policy).allowed).toBe(true);
    expect(decideNetwork('https://evilexample.com/mcp', ['1.1.1.1'], policy).allowed).toBe(false);
    expect(decideNetwork('http://internal.local./mcp', ['10.0.0.2'], policy).allowed).toBe(true);
    expect(decideNetwork('http://upper.example.org/mcp', ['10.0.0.2'], policy).allowed).toBe(true);
    expect(decideNetwork('http://[0:0::1]/mcp', [], policy).allowed).toBe(true);
    expect(decideNetwork('http://012.0.0.7/mcp', [], policy).allowed).toBe(true);
    expect(decideNetwork('https://other.org/mcp', ['1.1.1.1'], policy).outcome).toBe('not-listed');
  });

  it('refuses what is not an http(s) URL, and names that resolved to nothing', () => {
    expect(decideNetwork('not a url', []).outcome).toBe('invalid');
    expect(decideNetwork('file:///etc/passwd', []).outcome).toBe('invalid');
    expect(decideNetwork('https://nowhere.test/', []).outcome).toBe('invalid');
    expect(decideHost('x.test', ['not-an-ip']).allowed).toBe(false);
  });
});

describe('decision texts say what was decided and why', () => {
  const cases: [string, ReturnType<typeof decideHost>, string][] = [
    [
      'public',
      decideHost('mcp.example.com', ['93.184.216.34']),
      'mcp.example.com resolves to 93.184.216.34: a public address; allowed.',
    ],
    ['public literal', decideHost('93.184.216.34', []), '93.184.216.34: a public address; allowed.'],
    [
      'several public',
      decideHost('mcp.example.com', ['93.184.216.34', '2606:2800:220:1::1']),
      'mcp.example.com resolves to 93.184.216.34, 2606:2800:220:1::1: all public addresses; allowed.',
    ],
    [
      'private allowed by the interactive profile (a developer machine)',
      decideHost('localhost', ['127.0.0.1'], { profile: 'interactive' }),
      'localhost resolves to 127.0.0.1, a loopback address (127.0.0.0/8: Loopback, RFC 1122); allowed: the interactive profile allows private addresses by default (set governance.network.allowPrivate to false to refuse them).',
    ],
    [
      'private allowed by the setting',
      decideHost('nas.lan', ['192.168.1.10'], { profile: 'daemon', allowPrivate: true }),
      'nas.lan resolves to 192.168.1.10, a private address (192.168.0.0/16: Private-Use, RFC 1918); allowed: governance.network.allowPrivate is true.',
    ],
    [
      'private refused by the profile',
      decideHost('localhost', ['127.0.0.1'], { profile: 'daemon' }),
      'localhost resolves to 127.0.0.1, a loopback address (127.0.0.0/8: Loopback, RFC 1122); refused: the daemon profile refuses private addresses by default. Set governance.network.allowPrivate to true, or list the host in governance.network.allowedHosts.',
    ],
    [
      'private refused by the setting',
      decideHost('intranet.corp', ['10.0.0.5'], { profile: 'interactive', allowPrivate: false }),
      'intranet.corp resolves to 10.0.0.5, a private address (10.0.0.0/8: Private-Use, RFC 1918); refused: governance.network.allowPrivate is false. Set governance.network.allowPrivate to true, or list the host in governance.network.allowedHosts.',
    ],
    [
      'metadata refused',
      decideHost('evil.test', ['169.254.169.254'], { profile: 'interactive' }),
      'evil.test resolves to 169.254.169.254, a cloud metadata address (AWS, GCP, Azure, OCI, OpenStack, DigitalOcean… instance metadata); refused. List the host in governance.network.allowedHosts only if you mean it.',
    ],
    [
      'metadata embedded in IPv6',
      decideHost('::ffff:a9fe:a9fe', [], { profile: 'interactive' }),
      '::ffff:a9fe:a9fe, which embeds 169.254.169.254 (IPv4-mapped), a cloud metadata address (AWS, GCP, Azure, OCI, OpenStack, DigitalOcean… instance metadata); refused. List the host in governance.network.allowedHosts only if you mean it.',
    ],
    [
      'listed',
      decideHost('api.corp.example', ['10.1.1.1'], { allowedHosts: ['*.corp.example'] }),
      'api.corp.example is listed in governance.network.allowedHosts (as "*.corp.example"); allowed whatever it resolves to.',
    ],
    [
      'not listed',
      decideHost('other.org', ['1.1.1.1'], { allowedHosts: ['*.corp.example'] }),
      'other.org is not listed in governance.network.allowedHosts, which admits only the hosts it names; refused. Add it there to allow it.',
    ],
    ['no address', decideHost('nowhere.test', []), 'nowhere.test resolved to no address; refused'],
  ];

  it.each(cases)('%s', (_name, decision, text) => {
    expect(decision.reason).toBe(text);
    // An allowed decision never reads as a refusal, and a refusal never as "allowed".
    expect(/; allowed/.test(decision.reason)).toBe(decision.allowed);
  });

  it('names the address that decided and its class', () => {
    const decision = decideHost('mixed.test', ['93.184.216.34', '::ffff:10.0.0.1'], { profile: 'daemon' });
    expect(decision).toMatchObject({
      allowed: false,
      outcome: 'refused',
      address: '::ffff:10.0.0.1',
      verdict: { class: 'private', embedded: { form: 'IPv4-mapped', ipv4: '10.0.0.1' } },
    });
  });
});
