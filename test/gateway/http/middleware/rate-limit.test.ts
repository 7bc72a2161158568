import { describe, expect, it } from 'vitest';
import { rateLimit } from '../../../../src/gateway/http/middleware/rate-limit.js';
import { createPrincipal } from '../../../../src/gateway/http/principal.js';
import { contextFor, manualClock, runStep } from '../harness.js';

describe('rateLimit', () => {
  it('lets a burst through per address, then answers 429 with Retry-After', async () => {
    const clock = manualClock();
    const step = rateLimit({ by: 'ip', burst: 2, perSecond: 0.25, now: clock.now });
    const from = (remoteAddress: string) =>
      runStep(step, contextFor(new Request('http://127.0.0.1/'), { remoteAddress }));
    expect((await from('203.0.113.1')).response?.status).toBe(200);
    expect((await from('203.0.113.1')).response?.status).toBe(200);
    const refused = await from('203.0.113.1');
    expect(refused.error?.status).toBe(429);
    expect(refused.error?.headers['Retry-After']).toBe('4');
    expect(refused.nextCalls).toBe(0);
    expect((await from('203.0.113.2')).response?.status).toBe(200);
    clock.advance(3000);
    expect((await from('203.0.113.1')).error?.headers['Retry-After']).toBe('1');
    clock.advance(1000);
    expect((await from('203.0.113.1')).response?.status).toBe(200);
  });

  it('counts an IPv6 /64 as one address', async () => {
    const step = rateLimit({ by: 'ip', burst: 1, perSecond: 1, now: () => 0 });
    const from = (remoteAddress: string) =>
      runStep(step, contextFor(new Request('http://127.0.0.1/'), { remoteAddress }));
    expect((await from('2001:db8::1')).response?.status).toBe(200);
    expect((await from('2001:db8::2')).error?.status).toBe(429);
    expect((await from('2001:db8:0:1::1')).response?.status).toBe(200);
  });

  it('limits a principal across addresses, and refuses to run before authentication', async () => {
    const step = rateLimit({ by: 'principal', burst: 1, perSecond: 1, now: () => 0 });
    const principal = createPrincipal({ id: 'ci', kind: 'token' });
    const from = (remoteAddress: string) =>
      runStep(step, contextFor(new Request('http://127.0.0.1/'), { remoteAddress, principal }));
    expect((await from('203.0.113.1')).response?.status).toBe(200);
    const second = await from('203.0.113.2');
    expect(second.error?.status).toBe(429);
    expect(second.error?.message).toMatch(/this principal/);
    await expect(runStep(step, contextFor(new Request('http://127.0.0.1/')))).rejects.toThrow(
      /before authentication/,
    );
  });
});
