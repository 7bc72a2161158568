import { describe, expect, it } from 'vitest';
import { classifyAddress, decideNetwork } from '../../src/policy/network.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.10.10', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['8.8.8.8', 'public'],
    ['::1', 'loopback'],
    ['fd12::1', 'private'],
    ['fe80::1', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['2001:db8::1', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('decideNetwork', () => {
  it('denies metadata and private addresses by default, with what to do', () => {
    const meta = decideNetwork('http://169.254.169.254/latest', ['169.254.169.254']);
    expect(meta.allowed).toBe(false);
    expect(meta.reason).toMatch(/metadata address; list the host/);
    expect(decideNetwork('http://intranet.corp/mcp', ['10.0.0.5']).allowed).toBe(false);
    expect(decideNetwork('http://127.0.0.1:3000/mcp', []).allowed).toBe(false);
  });

  it('allows private addresses when asked, but never metadata', () => {
    expect(decideNetwork('http://127.0.0.1:3000/mcp', [], { allowPrivate: true }).allowed).toBe(true);
    expect(
      decideNetwork('http://evil.example/mcp', ['169.254.169.254'], { allowPrivate: true }).allowed,
    ).toBe(false);
  });

  it('checks every resolved address (a public name may resolve to a private one)', () => {
    expect(decideNetwork('https://mcp.example.com', ['93.184.216.34', '10.0.0.1']).allowed).toBe(false);
    expect(decideNetwork('https://mcp.example.com', ['93.184.216.34']).allowed).toBe(true);
  });

  it('an allow-list admits only its hosts, patterns included', () => {
    const policy = { allowedHosts: ['*.example.com', 'internal.local'] };
    expect(decideNetwork('https://api.example.com/mcp', ['10.0.0.1'], policy).allowed).toBe(true);
    expect(decideNetwork('https://example.com/mcp', ['1.1.1.1'], policy).allowed).toBe(true);
    expect(decideNetwork('http://internal.local/mcp', ['10.0.0.2'], policy).allowed).toBe(true);
    expect(decideNetwork('https://other.org/mcp', ['1.1.1.1'], policy).reason).toMatch(
      /not in the allowed hosts/,
    );
  });

  it('refuses what is not a URL', () => {
    expect(decideNetwork('not a url', []).allowed).toBe(false);
  });
});
