import { describe, expect, it } from 'vitest';
import { newState, parseAuthorizationResponse, sameState } from '../../../src/client/auth/auth-state.js';

describe('authorization state', () => {
  it('makes unguessable, distinct states', () => {
    const states = new Set(Array.from({ length: 50 }, () => newState()));
    expect(states.size).toBe(50);
    for (const s of states) expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('compares states exactly', () => {
    const s = newState();
    expect(sameState(s, s)).toBe(true);
    expect(sameState(s, `${s}x`)).toBe(false);
    expect(sameState(s, s.slice(0, -1))).toBe(false);
    expect(sameState(s, undefined)).toBe(false);
  });

  it('parses only redirects to the redirect URI', () => {
    const uri = 'http://127.0.0.1:33418/oauth/callback';
    expect(parseAuthorizationResponse(`${uri}?code=c&state=s&iss=https%3A%2F%2Fas.example`, uri)).toEqual({
      code: 'c',
      state: 's',
      iss: 'https://as.example',
    });
    expect(
      parseAuthorizationResponse(`${uri}?error=access_denied&error_description=no&state=s`, uri),
    ).toEqual({
      error: 'access_denied',
      errorDescription: 'no',
      state: 's',
    });
    expect(parseAuthorizationResponse('http://127.0.0.1:33418/elsewhere?code=c', uri)).toBeUndefined();
    expect(parseAuthorizationResponse('http://127.0.0.1:9/oauth/callback?code=c', uri)).toBeUndefined();
    expect(parseAuthorizationResponse('not a url', uri)).toBeUndefined();
  });
});
