import type { Principal } from '../context.js';

/**
 * Turns the token of an `Authorization: Bearer` header into a principal, or throws
 * `TokenRejected` when the token is at fault (any other error means the gateway could not
 * decide, e.g. the issuer's keys could not be fetched).
 */
export type TokenVerifier = (token: string) => Promise<Principal>;

/**
 * The token was refused. `description` goes to the client as the RFC 6750 `error_description`
 * of an `invalid_token` challenge, so it says what was wrong without echoing the token.
 */
export class TokenRejected extends Error {
  readonly description: string;

  constructor(description: string, options: { cause?: unknown } = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TokenRejected';
    this.description = description;
  }
}
