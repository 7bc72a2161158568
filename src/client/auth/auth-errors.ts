import {
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  IssuerMismatchError,
  OAuthError,
  RegistrationRejectedError,
} from '@modelcontextprotocol/client';
import { describeError, SwitchboardError } from '../../core/errors.js';

/**
 * The two auth errors Switchboard raises, and how the SDK's OAuth errors become them:
 *  - AUTH_REQUIRED: a person must log in (no usable tokens, or the refresh token was
 *    rejected). The host shows the server as needing auth with `details.command`.
 *  - AUTH_FAILED: authorization went wrong or was refused for safety; `details.reason` says
 *    which check, so callers branch on it rather than on message text.
 */

/** Why authorization failed; stable values, part of the public API. */
export type AuthFailureReason =
  /** The protected resource metadata names a different resource (RFC 9728 §3.3). */
  | 'resource_mismatch'
  /** Authorization server metadata names a different issuer (RFC 8414 §3.3). */
  | 'issuer_mismatch'
  /** The `iss` of the authorization response is wrong or missing (RFC 9207). */
  | 'iss_mismatch'
  /** The `state` of the authorization response matches no login started here. */
  | 'state_mismatch'
  /** An endpoint is plain http on a non-loopback host. */
  | 'insecure_endpoint'
  /** An endpoint is on another origin than its issuer. */
  | 'cross_origin_endpoint'
  /** The server keeps answering 403 insufficient_scope. */
  | 'insufficient_scope'
  /** The pre-registered client belongs to another authorization server. */
  | 'issuer_not_allowed'
  /** The authorization server answered with an OAuth error (`details.oauthError`). */
  | 'oauth_error'
  /** Discovery or registration failed (metadata malformed or refused). */
  | 'discovery_failed'
  /** An authorization server or metadata URL did not answer (network, 5xx): may pass. */
  | 'unreachable'
  /** The redirect does not carry a usable answer, or a browser is needed. */
  | 'bad_redirect';

/** The command that logs in to `server`. */
export function loginCommand(server: string): string {
  return `switchboard auth ${server}`;
}

/** AUTH_REQUIRED for `server`: what happened, and the command that fixes it. */
export function authRequired(
  server: string,
  why: string,
  extra: { cause?: unknown; authorizationUrl?: string; reason?: string } = {},
): SwitchboardError {
  const command = loginCommand(server);
  return new SwitchboardError(
    'AUTH_REQUIRED',
    `Server "${server}" needs a login: ${why}. Run \`${command}\`, then reconnect.`,
    {
      ...(extra.cause !== undefined && { cause: extra.cause }),
      details: {
        server,
        command,
        reason: extra.reason ?? 'login_required',
        ...(extra.authorizationUrl !== undefined && { authorizationUrl: extra.authorizationUrl }),
      },
    },
  );
}

/** AUTH_FAILED for `server` with a machine-readable reason. */
export function authFailed(
  server: string,
  reason: AuthFailureReason,
  message: string,
  extra: { cause?: unknown; details?: Record<string, unknown> } = {},
): SwitchboardError {
  return new SwitchboardError('AUTH_FAILED', `Server "${server}": ${message}`, {
    ...(extra.cause !== undefined && { cause: extra.cause }),
    details: { server, reason, ...extra.details },
  });
}

/**
 * Turns what an OAuth step threw into a SwitchboardError, by the SDK's error classes and
 * OAuth error codes. `invalid_grant` means the grant is gone: a login is needed.
 */
export function toAuthError(error: unknown, server: string): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  if (error instanceof IssuerMismatchError) {
    return error.kind === 'authorization_response'
      ? authFailed(
          server,
          'iss_mismatch',
          'the authorization response came from an unexpected issuer (RFC 9207 "iss"); the code was not used. Start the login again, and check the authorization server if it repeats.',
          { cause: error },
        )
      : authFailed(
          server,
          'issuer_mismatch',
          'the authorization server metadata names another issuer (RFC 8414); it was not used. Check the server\'s "authorization_servers".',
          { cause: error },
        );
  }
  if (error instanceof InsecureTokenEndpointError) {
    return authFailed(
      server,
      'insecure_endpoint',
      `the token endpoint ${error.tokenEndpoint} is not https; credentials were not sent.`,
      { cause: error },
    );
  }
  if (error instanceof AuthorizationServerMismatchError) {
    return authFailed(
      server,
      'issuer_not_allowed',
      `the credentials belong to ${error.recordedIssuer}, but the server now uses ${error.currentIssuer}; they were not sent. Log in again.`,
      { cause: error },
    );
  }
  if (error instanceof RegistrationRejectedError) {
    return authFailed(
      server,
      'discovery_failed',
      `the authorization server refused client registration (HTTP ${error.status}). Configure a pre-registered "clientId".`,
      { cause: error, details: { status: error.status } },
    );
  }
  if (error instanceof OAuthError) {
    if (error.code === 'invalid_grant') {
      return authRequired(server, `the authorization server rejected the grant (${error.message})`, {
        cause: error,
        reason: 'grant_rejected',
      });
    }
    return authFailed(
      server,
      'oauth_error',
      `the authorization server answered "${error.code}": ${error.message}. Check the OAuth settings of this server.`,
      { cause: error, details: { oauthError: error.code } },
    );
  }
  return authFailed(server, 'discovery_failed', `authorization failed: ${describeError(error)}`, {
    cause: error,
  });
}

/** The AUTH_* error in `error` or its cause chain (the SDK wraps some transport errors). */
export function findAuthError(error: unknown): SwitchboardError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (
      current instanceof SwitchboardError &&
      (current.code === 'AUTH_REQUIRED' || current.code === 'AUTH_FAILED')
    ) {
      return current;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
