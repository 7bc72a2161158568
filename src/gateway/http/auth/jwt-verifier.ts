// Types only here: jose is loaded with the first token (loadJose), so a gateway that checks
// no JWTs never pays for it (about 3 MiB of memory).
import type { errors, JWTPayload, JWTVerifyOptions, JWTVerifyResult } from 'jose';
import { type GatewayJwtConfig, MIN_HMAC_SECRET_LENGTH } from '../../../core/config/gateway-config.js';
import { isSwitchboardError, SwitchboardError } from '../../../core/errors.js';
import { interpolate } from '../../../core/interpolate.js';
import { HttpError } from '../http-error.js';
import { createPrincipal } from '../principal.js';
import { TokenRejected, type TokenVerifier } from './token-verifier.js';

/** Seconds of clock skew allowed on `exp` and `nbf` between the issuer and this machine. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;
/** How long one fetch of the issuer's key set may take. */
export const JWKS_TIMEOUT_MS = 5000;

export interface JwtVerifierOptions {
  /** For `${VAR}` in the HS256 secret; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Verifies JWTs with `jose`: the signature against the HS256 secret or the issuer's JWKS (keys
 * cached, re-fetched for an unknown `kid` at most every 30 s), only with the configured
 * algorithms (so `none`, and HS256 against a public key, never pass: RFC 8725 §2.1, §3.1),
 * then `iss`, `aud`, a required `exp`, and `nbf`, with a small clock tolerance.
 */
export function jwtVerifier(config: GatewayJwtConfig, options: JwtVerifierOptions = {}): TokenVerifier {
  const now = options.now ?? Date.now;
  const base: JWTVerifyOptions = {
    algorithms: [...config.algorithms],
    issuer: config.issuer,
    audience: [...config.audience],
    clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp'],
  };
  const verify = signatureCheck(config.key, options.env ?? process.env);

  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await verify(token, { ...base, currentDate: new Date(now()) }));
    } catch (error) {
      throw refusal(error, (await loadJose()).errors);
    }
    const id = payload[config.principalClaim];
    if (typeof id !== 'string' || id === '' || id.length > 256) {
      throw new TokenRejected(`the token has no "${config.principalClaim}" claim naming its holder`);
    }
    return createPrincipal({
      id,
      kind: 'jwt',
      grants: {
        servers: claimGlobs(payload, config.serversClaim),
        tools: claimGlobs(payload, config.toolsClaim),
      },
      claims: payload,
    });
  };
}

type Verify = (token: string, options: JWTVerifyOptions) => Promise<JWTVerifyResult>;

/**
 * Verification against the configured key, built once: the key set is cached between calls.
 * The secret is checked now, so a bad one stops the gateway at startup; jose comes with the
 * first token.
 */
function signatureCheck(
  key: GatewayJwtConfig['key'],
  env: Readonly<Record<string, string | undefined>>,
): Verify {
  const keysAt = key.kind === 'jwks' ? new URL(key.url) : undefined;
  const secret = key.kind === 'jwks' ? undefined : resolveSecret(key.secret, env);
  let ready: Promise<Verify> | undefined;
  const build = async (): Promise<Verify> => {
    const { createRemoteJWKSet, jwtVerify } = await loadJose();
    if (keysAt) {
      const keySet = createRemoteJWKSet(keysAt, { timeoutDuration: JWKS_TIMEOUT_MS });
      return (token, options) => jwtVerify(token, keySet, options);
    }
    return (token, options) => jwtVerify(token, secret!, options);
  };
  return async (token, options) => {
    ready ??= build();
    return (await ready)(token, options);
  };
}

let jose: Promise<typeof import('jose')> | undefined;
function loadJose(): Promise<typeof import('jose')> {
  jose ??= import('jose');
  return jose;
}

/**
 * Globs from a claim: an array of strings, or one space-separated string like OAuth `scope`.
 * Without a configured claim the token may use everything; with one, a token lacking it (or
 * carrying something else) may use nothing: an allow-list that cannot be read allows nothing.
 */
function claimGlobs(payload: JWTPayload, claim: string | undefined): readonly string[] {
  if (claim === undefined) return ['*'];
  const value = payload[claim];
  if (typeof value === 'string') return value.split(' ').filter((s) => s !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter((s) => s !== '');
  return [];
}

/** What the client is told for each way a token fails (by jose's error code, never its text). */
function refusal(error: unknown, jose: typeof errors): Error {
  if (!(error instanceof jose.JOSEError)) {
    // Not the token's fault: the key set could not be fetched (network, TLS, HTTP status).
    return new HttpError(503, 'The gateway could not fetch the keys to check the token. Try again later.', {
      cause: error,
    });
  }
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return new TokenRejected('the token has expired', { cause: error });
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as errors.JWTClaimValidationFailed).claim;
      const reason = (error as errors.JWTClaimValidationFailed).reason;
      if (reason === 'missing')
        return new TokenRejected(`the token has no "${claim}" claim`, { cause: error });
      if (claim === 'nbf') return new TokenRejected('the token is not valid yet', { cause: error });
      if (claim === 'iss') return new TokenRejected('the token comes from another issuer', { cause: error });
      if (claim === 'aud')
        return new TokenRejected('the token is meant for another audience', { cause: error });
      return new TokenRejected(`the token's "${claim}" claim is not accepted`, { cause: error });
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new TokenRejected("the token's signing algorithm is not accepted", { cause: error });
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new TokenRejected("the token's signature is invalid", { cause: error });
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new TokenRejected("no key of the issuer matches the token's key id", { cause: error });
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return new HttpError(503, 'The gateway could not fetch the keys to check the token. Try again later.', {
        cause: error,
      });
    default:
      return new TokenRejected('the token is malformed or not supported', { cause: error });
  }
}

/** The HS256 secret with `${VAR}` expanded, refused when unset or too short to be safe. */
function resolveSecret(raw: string, env: Readonly<Record<string, string | undefined>>): Uint8Array {
  let secret: string;
  try {
    secret = interpolate(raw, env, { server: 'gateway', field: 'gateway.auth.jwt.secret' });
  } catch (error) {
    if (!isSwitchboardError(error, 'ENV_VAR_MISSING')) throw error;
    const variable = String(error.details.variable);
    throw new SwitchboardError(
      'ENV_VAR_MISSING',
      `gateway.auth.jwt.secret uses \${${variable}}, but ${variable} is not set. Set it in the environment of the gateway.`,
      { details: { field: 'gateway.auth.jwt.secret', variable }, cause: error },
    );
  }
  const bytes = new TextEncoder().encode(secret);
  if (bytes.length < MIN_HMAC_SECRET_LENGTH) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `gateway.auth.jwt.secret is ${bytes.length} bytes; HS256 needs at least ${MIN_HMAC_SECRET_LENGTH} (RFC 7518 §3.2). Use a longer random secret.`,
      { details: { field: 'gateway.auth.jwt.secret' } },
    );
  }
  return bytes;
}
