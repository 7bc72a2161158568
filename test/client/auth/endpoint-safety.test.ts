import { describe, expect, it } from 'vitest';
import {
  checkMetadataEndpoints,
  isLoopbackHost,
  secureUrl,
} from '../../../src/client/auth/endpoint-safety.js';
import { SwitchboardError } from '../../../src/core/errors.js';

const endpoints = (origin: string) => ({
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`,
});

describe('endpoint safety', () => {
  it('knows loopback hosts', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['example.com', '10.0.0.1', 'localhost.example.com', '128.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('accepts https anywhere and http only on loopback', () => {
    expect(secureUrl('s', 'https://as.example/token', 'x')).toBeInstanceOf(URL);
    expect(secureUrl('s', 'http://127.0.0.1:9000/token', 'x')).toBeInstanceOf(URL);
    expect(secureUrl('s', 'http://localhost:9000/token', 'x')).toBeInstanceOf(URL);
    const refused = secureUrl('s', 'http://as.example/token', 'The token_endpoint');
    expect(refused).toBeInstanceOf(SwitchboardError);
    expect((refused as SwitchboardError).code).toBe('AUTH_FAILED');
    expect((refused as SwitchboardError).details.reason).toBe('insecure_endpoint');
    expect((secureUrl('s', 'not a url', 'x') as SwitchboardError).details.reason).toBe('discovery_failed');
  });

  it('accepts endpoints on the issuer origin', () => {
    expect(
      checkMetadataEndpoints('s', 'https://as.example', endpoints('https://as.example')),
    ).toBeUndefined();
    expect(
      checkMetadataEndpoints('s', 'https://as.example/tenant1', endpoints('https://as.example/tenant1')),
    ).toBeUndefined();
  });

  it('refuses endpoints on another origin, or over plain http', () => {
    const cross = checkMetadataEndpoints('s', 'https://as.example', {
      ...endpoints('https://as.example'),
      token_endpoint: 'https://evil.example/token',
    });
    expect(cross?.details).toMatchObject({
      reason: 'cross_origin_endpoint',
      endpoint: 'https://evil.example/token',
    });
    const port = checkMetadataEndpoints('s', 'https://as.example', {
      ...endpoints('https://as.example'),
      authorization_endpoint: 'https://as.example:8443/authorize',
    });
    expect(port?.details.reason).toBe('cross_origin_endpoint');
    const plain = checkMetadataEndpoints('s', 'http://as.example', endpoints('http://as.example'));
    expect(plain?.details.reason).toBe('insecure_endpoint');
  });
});
