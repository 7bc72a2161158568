import { describe, expect, it } from 'vitest';
import { createCsrf, csrfKey } from '../../../src/gateway/api/csrf.js';

const post = (headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/api/servers', { method: 'POST', headers });

describe('CSRF tokens', () => {
  const csrf = createCsrf();

  it('makes one token per principal, unlike another process key', () => {
    const token = csrf.token('alice');
    expect(csrf.token('alice')).toBe(token);
    expect(csrf.token('bob')).not.toBe(token);
    expect(createCsrf().token('alice')).not.toBe(token);
    expect(createCsrf({ key: new Uint8Array(32) }).token('alice')).toBe(
      createCsrf({ key: new Uint8Array(32) }).token('alice'),
    );
  });

  it('agrees across instances that share the secret key, and only then', () => {
    const secret = new Uint8Array(32).fill(7);
    const a = createCsrf({ key: csrfKey(secret) });
    const b = createCsrf({ key: csrfKey(secret) });
    expect(b.allows(post({ 'X-Switchboard-CSRF': a.token('alice') }), 'alice')).toBe(true);
    const other = createCsrf({ key: csrfKey(new Uint8Array(32).fill(8)) });
    expect(other.allows(post({ 'X-Switchboard-CSRF': a.token('alice') }), 'alice')).toBe(false);
  });

  it('lets safe methods, authorized requests and the right token through; nothing else', () => {
    const token = csrf.token('alice');
    expect(csrf.allows(new Request('http://127.0.0.1/api/servers'), 'alice')).toBe(true);
    expect(csrf.allows(post({ 'X-Switchboard-CSRF': token }), 'alice')).toBe(true);
    expect(csrf.allows(post({ authorization: 'Bearer x' }), 'alice')).toBe(true);
    expect(csrf.allows(post(), 'alice')).toBe(false);
    expect(csrf.allows(post({ 'X-Switchboard-CSRF': token }), 'bob')).toBe(false);
    expect(csrf.allows(post({ 'X-Switchboard-CSRF': token.slice(1) }), 'alice')).toBe(false);
    expect(csrf.allows(post({ 'X-Switchboard-CSRF': '' }), 'alice')).toBe(false);
    for (const method of ['PUT', 'PATCH', 'DELETE'])
      expect(csrf.allows(new Request('http://127.0.0.1/api/x', { method }), 'alice')).toBe(false);
  });
});
