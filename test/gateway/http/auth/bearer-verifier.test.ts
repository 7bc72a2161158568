import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../../src/core/config/gateway-config.js';
import { bearerVerifier } from '../../../../src/gateway/http/auth/bearer-verifier.js';
import { TokenRejected } from '../../../../src/gateway/http/auth/token-verifier.js';
import { rejectionOf } from '../../../helpers/rejection.js';

describe('bearerVerifier', () => {
  const verify = bearerVerifier([
    { id: 'ci', sha256: hashToken('ci-token'), servers: ['fs'] },
    { id: 'ops', sha256: hashToken('ops-token').toUpperCase() },
  ]);

  it('finds the entry whose hash matches, with its grants', async () => {
    const ci = await verify('ci-token');
    expect(ci).toMatchObject({ id: 'ci', kind: 'token', grants: { servers: ['fs'], tools: ['*'] } });
    expect(ci.allows('fs', 'x')).toBe(true);
    expect(ci.allows('github')).toBe(false);
    expect((await verify('ops-token')).grants).toEqual({ servers: ['*'], tools: ['*'] });
  });

  it('refuses an unknown token, and the stored hash used as a token', async () => {
    for (const token of ['nope', 'ci-token ', hashToken('ci-token')]) {
      const error = await rejectionOf(verify(token));
      expect(error).toBeInstanceOf(TokenRejected);
    }
  });
});
