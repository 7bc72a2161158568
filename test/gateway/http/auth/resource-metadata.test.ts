import { describe, expect, it } from 'vitest';
import {
  bearerChallenge,
  metadataDocument,
  metadataPath,
  metadataUrl,
  resourceUrl,
} from '../../../../src/gateway/http/auth/resource-metadata.js';

describe('resource metadata', () => {
  it('puts the well-known segment before the path (RFC 9728 §3.1)', () => {
    expect(metadataPath('/mcp')).toBe('/.well-known/oauth-protected-resource/mcp');
    expect(metadataPath('/a/mcp/')).toBe('/.well-known/oauth-protected-resource/a/mcp');
    expect(metadataPath('/')).toBe('/.well-known/oauth-protected-resource');
    expect(metadataUrl('https://gw.example.com/mcp')).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource/mcp',
    );
  });

  it('takes the resource from the configuration, else from the request', () => {
    const request = new Request('http://localhost:7777/whatever');
    expect(resourceUrl({ authorizationServers: ['https://as'] }, request, '/mcp')).toBe(
      'http://localhost:7777/mcp',
    );
    expect(
      resourceUrl({ authorizationServers: ['https://as'], resource: 'https://gw/mcp' }, request, '/mcp'),
    ).toBe('https://gw/mcp');
  });

  it('describes the resource and its authorization servers', () => {
    expect(
      metadataDocument({ authorizationServers: ['https://as'], scopesSupported: ['mcp'] }, 'https://gw/mcp'),
    ).toEqual({
      resource: 'https://gw/mcp',
      authorization_servers: ['https://as'],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'Switchboard',
    });
  });

  it('challenges without an error code when no token came, with invalid_token when a bad one did', () => {
    expect(bearerChallenge({})).toBe('Bearer');
    expect(
      bearerChallenge({ resourceMetadataUrl: 'https://gw/.well-known/oauth-protected-resource/mcp' }),
    ).toBe('Bearer resource_metadata="https://gw/.well-known/oauth-protected-resource/mcp"');
    expect(bearerChallenge({ description: 'the "token" is \\ bad\n' })).toBe(
      'Bearer error="invalid_token", error_description="the \\"token\\" is \\\\ bad "',
    );
  });
});
