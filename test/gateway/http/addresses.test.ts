import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHost, rateLimitKey } from '../../../src/gateway/http/addresses.js';

describe('addresses', () => {
  it('knows loopback addresses and names', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LOCALHOST',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '128.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      'localhost.evil.com',
      'evil.com',
      '',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
    expect(isLoopbackAddress('localhost')).toBe(false);
  });

  it('keys IPv4 alone, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(rateLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(rateLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(rateLimitKey('')).toBe('');
  });
});
