import { timingSafeEqual } from 'node:crypto';
import { type GatewayTokenConfig, hashToken } from '../../../core/config/gateway-config.js';
import type { Principal } from '../context.js';
import { ALL_GRANTS, createPrincipal } from '../principal.js';
import { TokenRejected, type TokenVerifier } from './token-verifier.js';

/**
 * Static bearer tokens, stored as SHA-256 hashes. The presented token is hashed and compared
 * with every stored hash in constant time, without stopping at a match, so neither the
 * comparison nor the position of the matching entry shows in the timing.
 */
export function bearerVerifier(tokens: readonly GatewayTokenConfig[]): TokenVerifier {
  // One principal per configured token, made once: its grants never change.
  const entries = tokens.map((token) => ({
    principal: createPrincipal({
      id: token.id,
      kind: 'token',
      grants: { servers: token.servers ?? ALL_GRANTS.servers, tools: token.tools ?? ALL_GRANTS.tools },
    }),
    hash: Buffer.from(token.sha256, 'hex'),
  }));
  return async (presented) => {
    const hash = Buffer.from(hashToken(presented), 'hex');
    let found: Principal | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(entry.hash, hash) && found === undefined) found = entry.principal;
    }
    if (found === undefined) throw new TokenRejected('the token is not one this gateway issued');
    return found;
  };
}
