import { describe, expect, it } from 'vitest';
import { buildChildEnv } from '../../../src/client/transports/safe-env.js';

describe('buildChildEnv', () => {
  it('passes the allowlist, drops secrets and shell functions, and lets the server env win', () => {
    const parent = {
      PATH: '/bin',
      HOME: '/h',
      AWS_SECRET_ACCESS_KEY: 's3cret',
      SHELL: '() { evil; }',
      LANG: 'C',
    };
    const env = buildChildEnv(parent, { LANG: 'de_DE', API_KEY: 'k' }, 'linux');
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'de_DE', API_KEY: 'k' });
  });
});
