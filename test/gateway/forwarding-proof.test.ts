import { describe, expect, it } from 'vitest';
import {
  ForwardingProof,
  forwardingKey,
  forwardingSubject,
} from '../../src/gateway/replicas/forwarded-header.js';

/**
 * The proof a request was relayed by another replica (docs/replicas.md): valid for what it was
 * made for — method, path and session — for 30 seconds, under the key every replica derives
 * from the shared secret key; anything else is no proof.
 */
describe('the forwarding proof', () => {
  const key = forwardingKey(new Uint8Array(32).fill(1));
  let now = 1_000_000;
  const proof = new ForwardingProof(key, () => now);
  const subject = forwardingSubject('POST', '/api/inbox/item-1', null);

  it('names the replica that made it, for the request it was made for', () => {
    expect(proof.verify(proof.sign('replica-a', subject), subject)).toBe('replica-a');
    const session = forwardingSubject('POST', '/mcp', 'session-1');
    expect(proof.verify(proof.sign('replica-a', session), session)).toBe('replica-a');
  });

  it('is no proof for another method, path or session, under another key, stale or malformed', () => {
    const value = proof.sign('replica-a', subject);
    expect(proof.verify(value, forwardingSubject('POST', '/api/inbox/item-2', null))).toBeUndefined();
    expect(proof.verify(value, forwardingSubject('GET', '/api/inbox/item-1', null))).toBeUndefined();
    expect(proof.verify(value, forwardingSubject('POST', '/api/inbox/item-1', 'session'))).toBeUndefined();
    const other = new ForwardingProof(forwardingKey(new Uint8Array(32).fill(2)), () => now);
    expect(other.verify(value, subject)).toBeUndefined();
    const [replica, at, mac] = value.split('.') as [string, string, string];
    expect(proof.verify(`replica-b.${at}.${mac}`, subject)).toBeUndefined();
    expect(proof.verify(`${replica}.${Number(at) + 1}.${mac}`, subject)).toBeUndefined();
    expect(proof.verify(null, subject)).toBeUndefined();
    expect(proof.verify('a.b', subject)).toBeUndefined();
    now += 30_001;
    expect(proof.verify(value, subject)).toBeUndefined();
  });
});
