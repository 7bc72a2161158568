import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../src/core/errors.js';
import { interpolate, interpolateRecord } from '../../src/core/interpolate.js';

const site = { server: 'github', field: 'env.TOKEN' };
const env = { HOME: '/home/me', TOKEN: 'abc', EMPTY: '' };

describe('interpolate', () => {
  it('expands ${VAR}, $VAR and ${VAR:-default}', () => {
    expect(interpolate('${HOME}/x', env, site)).toBe('/home/me/x');
    expect(interpolate('$HOME/x', env, site)).toBe('/home/me/x');
    expect(interpolate('Bearer ${TOKEN}', env, site)).toBe('Bearer abc');
    expect(interpolate('${MISSING:-fallback}', env, site)).toBe('fallback');
    expect(interpolate('${EMPTY:-fallback}', env, site)).toBe('fallback');
    expect(interpolate('${MISSING:-}', env, site)).toBe('');
  });

  it('keeps $$ as a literal dollar and leaves text without variables alone', () => {
    expect(interpolate('cost $$5', env, site)).toBe('cost $5');
    expect(interpolate('plain', env, site)).toBe('plain');
  });

  it('refuses an unset variable, naming it and the server', () => {
    let caught: unknown;
    try {
      interpolate('${NOPE}', env, site);
    } catch (error) {
      caught = error;
    }
    expect(isSwitchboardError(caught, 'ENV_VAR_MISSING')).toBe(true);
    expect((caught as Error).message).toContain('NOPE');
    expect((caught as Error).message).toContain('"github"');
    expect((caught as Error).message).toContain('${NOPE:-default}');
  });

  it('accepts a variable set to the empty string without a default', () => {
    expect(interpolate('[${EMPTY}]', env, site)).toBe('[]');
  });

  it('names the record key in errors', () => {
    expect(() =>
      interpolateRecord({ Authorization: 'Bearer $GONE' }, env, { server: 's', field: 'headers' }),
    ).toThrow(/headers\.Authorization/);
  });
});
