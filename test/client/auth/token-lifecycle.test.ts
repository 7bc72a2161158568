import { describe, expect, it } from 'vitest';
import { REFRESH_SKEW_MS, tokenState, toStoredTokens } from '../../../src/client/auth/token-lifecycle.js';

describe('token lifecycle', () => {
  const t0 = 1_000_000;

  it('stamps when tokens were obtained and expire', () => {
    const stored = toStoredTokens({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }, t0);
    expect(stored).toMatchObject({ access_token: 'a', obtainedAt: t0, expiresAt: t0 + 3_600_000 });
    expect(toStoredTokens({ access_token: 'a', token_type: 'Bearer' }, t0).expiresAt).toBeUndefined();
  });

  it('keeps the refresh token and scope a refresh answer leaves out, and records the scope asked', () => {
    const previous = toStoredTokens(
      { access_token: 'a', token_type: 'Bearer', refresh_token: 'r1', scope: 'read' },
      t0,
    );
    const next = toStoredTokens({ access_token: 'b', token_type: 'Bearer' }, t0 + 1, { previous });
    expect(next).toMatchObject({ access_token: 'b', refresh_token: 'r1', scope: 'read' });
    const rotated = toStoredTokens({ access_token: 'c', token_type: 'Bearer', refresh_token: 'r2' }, t0, {
      previous,
    });
    expect(rotated.refresh_token).toBe('r2');
    expect(
      toStoredTokens({ access_token: 'a', token_type: 'Bearer' }, t0, { requestedScope: 'x y' }).scope,
    ).toBe('x y');
  });

  it('is due for a refresh within the skew before expiry, and expired after it', () => {
    const tokens = toStoredTokens({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }, t0);
    const expiry = t0 + 3_600_000;
    expect(REFRESH_SKEW_MS).toBe(60_000);
    expect(tokenState(tokens, expiry - REFRESH_SKEW_MS - 1)).toBe('fresh');
    expect(tokenState(tokens, expiry - REFRESH_SKEW_MS)).toBe('refresh');
    expect(tokenState(tokens, expiry - 1)).toBe('refresh');
    expect(tokenState(tokens, expiry)).toBe('expired');
    expect(tokenState(toStoredTokens({ access_token: 'a', token_type: 'Bearer' }, t0), t0 + 1e12)).toBe(
      'fresh',
    );
  });
});
