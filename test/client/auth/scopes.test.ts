import { describe, expect, it } from 'vitest';
import { chooseScope, stepUpScope, withOfflineAccess } from '../../../src/client/auth/scopes.js';

describe('chooseScope', () => {
  it('takes the challenge first, then configured scopes, then the resource metadata, else none', () => {
    const all = {
      challenged: 'mcp:basic',
      configured: ['mine'],
      resourceScopes: ['a', 'b'],
      wantsRefresh: false,
    };
    expect(chooseScope(all)).toBe('mcp:basic');
    expect(chooseScope({ ...all, challenged: '  ' })).toBe('mine');
    expect(chooseScope({ resourceScopes: ['a', 'b'], wantsRefresh: false })).toBe('a b');
    expect(chooseScope({ wantsRefresh: false })).toBeUndefined();
    expect(chooseScope({ resourceScopes: [], configured: [], wantsRefresh: true })).toBeUndefined();
  });

  it('adds offline_access only when the authorization server lists it and a refresh token is wanted', () => {
    const base = { challenged: 'read', serverScopes: ['read', 'offline_access'] };
    expect(chooseScope({ ...base, wantsRefresh: true })).toBe('read offline_access');
    expect(chooseScope({ ...base, wantsRefresh: false })).toBe('read');
    expect(chooseScope({ challenged: 'read', serverScopes: ['read'], wantsRefresh: true })).toBe('read');
    expect(chooseScope({ challenged: 'read', wantsRefresh: true })).toBe('read');
  });

  it('never sends offline_access the server does not list, nor offline_access alone', () => {
    expect(withOfflineAccess('read offline_access', ['read'], true)).toBe('read');
    expect(withOfflineAccess('offline_access', ['offline_access'], true)).toBeUndefined();
    expect(withOfflineAccess(undefined, ['offline_access'], true)).toBeUndefined();
  });
});

describe('stepUpScope', () => {
  it('asks for the union of what was asked, what is held and what is challenged', () => {
    expect(stepUpScope('mcp:basic', 'mcp:basic', 'mcp:write')).toBe('mcp:basic mcp:write');
    expect(stepUpScope(undefined, 'a', 'a b')).toBe('a b');
  });

  it('gives up when the union adds nothing to what the token holds', () => {
    expect(stepUpScope('mcp:admin', 'mcp:admin', 'mcp:admin')).toBeUndefined();
    expect(stepUpScope('a b', 'a b', 'b')).toBeUndefined();
  });

  it('asks again when the token holds less than was asked', () => {
    expect(stepUpScope('a b', 'a', 'b')).toBe('a b');
  });
});
