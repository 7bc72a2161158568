import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, parseProtocolMode } from '../../src/core/server-config.js';

function rejection(raw: unknown): SwitchboardError {
  try {
    normalizeServerEntry(raw, { file: 'switchboard.json' });
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('normalizeServerEntry', () => {
  it('infers stdio from command and applies defaults', () => {
    const c = normalizeServerEntry({ name: 'fs', command: 'npx', args: ['-y', 'x'] });
    expect(c.transport).toEqual({ kind: 'stdio', command: 'npx', args: ['-y', 'x'], env: {} });
    expect(c.timeouts).toEqual({ connectMs: 60_000, requestMs: 120_000 });
    expect(c.protocol).toEqual({ kind: 'auto' });
  });

  it('infers http from url and keeps headers', () => {
    const c = normalizeServerEntry({ name: 'r', url: 'https://x.example/mcp', headers: { A: '1' } });
    expect(c.transport).toEqual({ kind: 'http', url: 'https://x.example/mcp', headers: { A: '1' } });
  });

  it('clamps the request timeout to 1..3600 s', () => {
    expect(
      normalizeServerEntry({ name: 'a', command: 'x', timeouts: { request: 0.1 } }).timeouts.requestMs,
    ).toBe(1000);
    expect(
      normalizeServerEntry({ name: 'a', command: 'x', timeouts: { request: 99999 } }).timeouts.requestMs,
    ).toBe(3_600_000);
  });

  it('rejects both command and url, naming file, entry and field', () => {
    const e = rejection({ name: 'both', command: 'x', url: 'http://h/mcp' });
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/switchboard\.json: server "both", field "command"/);
  });

  it('rejects an entry with neither command nor url', () => {
    expect(rejection({ name: 'none' }).message).toMatch(/neither "command" nor "url"/);
  });

  it('rejects a bad name, a bad url, a bad protocol and a wrong field type', () => {
    expect(rejection({ name: 'bad name', command: 'x' }).details.field).toBe('name');
    expect(rejection({ name: 'u', url: 'not a url' }).message).toMatch(/not a URL/);
    expect(rejection({ name: 'u', url: 'ftp://h/x' }).message).toMatch(/only http: and https:/);
    expect(rejection({ name: 'p', command: 'x', protocol: '2023-01-01' }).message).toMatch(
      /"2023-01-01" is not a protocol mode/,
    );
    expect(rejection({ name: 't', command: 'x', args: 'not-an-array' }).details.field).toBe('args');
  });

  it('accepts a url with a variable (checked when it is expanded)', () => {
    expect(normalizeServerEntry({ name: 'v', url: '${BASE}/mcp' }).transport.kind).toBe('http');
  });
});

describe('normalizeServerEntry: auth', () => {
  const url = 'https://x.example/mcp';

  it('keeps a bearer token and turns an API key into one', () => {
    expect(normalizeServerEntry({ name: 'b', url, auth: { type: 'bearer', token: '${T}' } }).auth).toEqual({
      type: 'bearer',
      token: '${T}',
    });
    expect(normalizeServerEntry({ name: 'k', url, auth: { type: 'api_key', key: '${KEY}' } }).auth).toEqual({
      type: 'bearer',
      token: '${KEY}',
    });
  });

  it('normalizes OAuth with the authorization_code grant by default, keeping variables', () => {
    const c = normalizeServerEntry({
      name: 'o',
      url,
      auth: {
        type: 'oauth',
        clientId: '${ID}',
        scopes: ['read'],
        clientMetadataUrl: 'https://me.example/c.json',
      },
    });
    expect(c.auth).toEqual({
      type: 'oauth',
      grant: 'authorization_code',
      clientId: '${ID}',
      scopes: ['read'],
      clientMetadataUrl: 'https://me.example/c.json',
    });
    expect(normalizeServerEntry({ name: 'm', url, auth: { type: 'oauth' } }).auth).toEqual({
      type: 'oauth',
      grant: 'authorization_code',
    });
  });

  it('checks what each grant needs, naming the field', () => {
    const field = (auth: Record<string, unknown>) => rejection({ name: 'o', url, auth }).details.field;
    expect(field({ type: 'oauth', grant: 'client_credentials' })).toBe('auth.clientId');
    expect(field({ type: 'oauth', grant: 'client_credentials', clientId: 'c' })).toBe('auth.clientSecret');
    expect(field({ type: 'oauth', grant: 'jwt_bearer' })).toBe('auth.assertion');
    expect(field({ type: 'oauth', assertion: 'jwt' })).toBe('auth.grant');
    expect(field({ type: 'oauth', clientSecret: 's' })).toBe('auth.clientId');
    expect(field({ type: 'oauth', privateKey: 'k', privateKeyFile: 'f' })).toBe('auth.privateKeyFile');
    expect(field({ type: 'oauth', tokenEndpointAuthMethod: 'private_key_jwt' })).toBe('auth.privateKey');
    expect(field({ type: 'oauth', clientMetadataUrl: 'http://me.example/c.json' })).toBe(
      'auth.clientMetadataUrl',
    );
    expect(
      field({ type: 'oauth', grant: 'jwt_bearer', clientId: 'c', idp: { clientId: 'i', idToken: 't' } }),
    ).toBe('auth.idp');
    expect(
      normalizeServerEntry({
        name: 'o',
        url,
        auth: { type: 'oauth', grant: 'client_credentials', clientId: 'c', privateKeyFile: '/k.pem' },
      }).auth,
    ).toMatchObject({ grant: 'client_credentials', privateKeyFile: '/k.pem' });
  });

  it('lists the known fields of the auth type for an unknown one', () => {
    const e = rejection({ name: 'o', url, auth: { type: 'oauth', clientID: 'x' } });
    expect(e.details.field).toBe('auth.clientID');
    expect(e.message).toMatch(/Did you mean "clientId"\?/);
  });

  it('refuses OAuth for a local server', () => {
    const e = rejection({ name: 'l', command: 'x', auth: { type: 'oauth' } });
    expect(e.details.field).toBe('auth');
    expect(e.message).toMatch(/OAuth is for remote servers/);
  });
});

describe('normalizeServerEntry: api_key and bounds', () => {
  it('takes "api_key" on a remote entry as a bearer token, variables kept', () => {
    const c = normalizeServerEntry({ name: 't', url: 'https://t.example/mcp', api_key: '${TICKETS_KEY}' });
    expect(c.auth).toEqual({ type: 'bearer', token: '${TICKETS_KEY}' });
  });

  it('refuses "api_key" with "auth", or on a local server, naming the field', () => {
    const both = rejection({
      name: 't',
      url: 'https://t/mcp',
      api_key: 'k',
      auth: { type: 'bearer', token: 'x' },
    });
    expect(both.details.field).toBe('api_key');
    expect(both.message).toContain('Keep one');
    const local = rejection({ name: 't', command: 'x', api_key: 'k' });
    expect(local.message).toContain('"api_key" is for a remote server ("url")');
  });

  it('refuses a timeout a timer cannot hold, and quotes a huge value shortly', () => {
    expect(rejection({ name: 'a', command: 'x', timeouts: { connect: 86_401 } }).details.field).toBe(
      'timeouts.connect',
    );
    expect(
      normalizeServerEntry({ name: 'a', command: 'x', timeouts: { startup: 86_400 } }).startupTimeoutMs,
    ).toBe(86_400_000);
    const url = rejection({ name: 'a', url: `not a url ${'x'.repeat(100_000)}` });
    expect(url.message.length).toBeLessThan(400);
    expect(url.message).toContain('(100010 characters)');
  });
});

describe('parseProtocolMode', () => {
  it('parses modes and known versions', () => {
    expect(parseProtocolMode(undefined)).toEqual({ kind: 'auto' });
    expect(parseProtocolMode('legacy')).toEqual({ kind: 'legacy' });
    expect(parseProtocolMode('2025-06-18')).toEqual({ kind: 'pinned', version: '2025-06-18' });
    expect(parseProtocolMode('2026-07-28')).toEqual({ kind: 'pinned', version: '2026-07-28' });
    expect(parseProtocolMode('nonsense')).toBeUndefined();
  });
});
