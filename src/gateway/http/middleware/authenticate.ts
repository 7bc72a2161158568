import type { GatewayAuthConfig, ResourceMetadataConfig } from '../../../core/config/gateway-config.js';
import { isLoopbackAddress } from '../addresses.js';
import { bearerVerifier } from '../auth/bearer-verifier.js';
import { jwtVerifier } from '../auth/jwt-verifier.js';
import { type LocalCredential, localCookieName } from '../auth/local-token.js';
import {
  bearerChallenge,
  metadataDocument,
  metadataPath,
  metadataUrl,
  resourceUrl,
} from '../auth/resource-metadata.js';
import { TokenRejected, type TokenVerifier } from '../auth/token-verifier.js';
import type { Middleware } from '../context.js';
import { HttpError } from '../http-error.js';
import { createPrincipal } from '../principal.js';

export interface AuthenticateOptions {
  readonly auth: GatewayAuthConfig;
  /** The MCP endpoint's path, for the metadata document's location. */
  readonly path: string;
  /** Anonymous access from other machines was allowed on purpose (`--insecure`). */
  readonly insecure?: boolean;
  /** For `${VAR}` in the JWT secret; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds; default `Date.now` (JWT `exp` and `nbf` are checked against it). */
  readonly now?: () => number;
  /** Mode `none`: the local credential (local-token.ts) that makes a caller the machine's owner. */
  readonly local?: LocalAuthOptions;
}

/** How mode `none` recognises the machine's owner. */
export interface LocalAuthOptions {
  readonly credential: LocalCredential;
  /** Paths where the token cookie counts (the dashboard's); elsewhere only the bearer token. */
  acceptsCookie(pathname: string): boolean;
}

/** The token of `Authorization: Bearer <token>` (RFC 6750 §2.1), '' when malformed, undefined when absent. */
function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^Bearer(?: +(.*))?$/i.exec(header.trim());
  if (!match) return undefined;
  const token = match[1] ?? '';
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(token) ? token : '';
}

/**
 * Establishes `ctx.principal`. Mode `none`: everyone is the anonymous principal, but only from
 * this machine unless `insecure`, and a caller with the local token is `local` (see
 * `withoutAuthentication`). Modes `bearer` and `jwt`: the `Authorization: Bearer` token
 * is verified, and a missing or bad one gets 401 with a `WWW-Authenticate` challenge that,
 * when `resourceMetadata` is configured, points MCP clients at the RFC 9728 document. That
 * document is served here, without authentication, at `/.well-known/oauth-protected-resource<path>`.
 */
export function authenticate(options: AuthenticateOptions): Middleware {
  const { auth } = options;
  if (auth.mode === 'none') return withoutAuthentication(options);
  const verify: TokenVerifier =
    auth.mode === 'bearer'
      ? bearerVerifier(auth.tokens)
      : jwtVerifier(auth.jwt, {
          ...(options.env && { env: options.env }),
          ...(options.now && { now: options.now }),
        });
  const metadata = auth.resourceMetadata;
  const documentPath =
    metadata && metadataPath(metadata.resource ? new URL(metadata.resource).pathname : options.path);

  return async (ctx, next) => {
    if (metadata && ctx.head.pathname === documentPath) {
      return metadataResponse(ctx.request, metadata, resourceUrl(metadata, ctx.request, options.path));
    }
    const discovery = () =>
      metadata && { resourceMetadataUrl: metadataUrl(resourceUrl(metadata, ctx.request, options.path)) };
    const token = bearerToken(ctx.head.header('authorization'));
    if (token === undefined) {
      throw new HttpError(401, 'Authentication required: send "Authorization: Bearer <token>".', {
        headers: { 'WWW-Authenticate': bearerChallenge({ ...discovery() }) },
      });
    }
    try {
      if (token === '') throw new TokenRejected('the Authorization header must be Bearer and one token');
      ctx.principal = await verify(token);
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      throw new HttpError(401, `The token was refused: ${error.description}.`, {
        headers: { 'WWW-Authenticate': bearerChallenge({ description: error.description, ...discovery() }) },
      });
    }
    return next();
  };
}

/**
 * Mode `none`. Everyone who may connect at all (this machine, or anyone with `insecure`) is
 * the anonymous principal, which may use every tool but change nothing about the gateway; a
 * caller that sends the local token — as a bearer token, or on the dashboard's paths as its
 * cookie — is `local`, the machine's owner, which may. A bearer token that is not the local
 * token is refused rather than ignored, so a client with a stale one learns it at once; a
 * stale cookie (browsers send them unasked) only leaves the caller anonymous.
 */
function withoutAuthentication(options: AuthenticateOptions): Middleware {
  const anonymous = createPrincipal({ id: 'anonymous', kind: 'anonymous', canManage: false });
  const owner = createPrincipal({ id: 'local', kind: 'local', canManage: true });
  const local = options.local;
  return (ctx, next) => {
    if (!options.insecure && !isLoopbackAddress(ctx.remoteAddress)) {
      throw new HttpError(403, 'This gateway takes requests from this machine only.');
    }
    ctx.principal = anonymous;
    if (!local) return next();
    const header = ctx.head.header('authorization');
    if (header !== null) {
      const token = bearerToken(header);
      if (!token || !local.credential.matches(token)) {
        throw new HttpError(
          401,
          `The token was refused: it is not this gateway's local token, which is in ${local.credential.where}.`,
          { headers: { 'WWW-Authenticate': bearerChallenge({ description: 'not the local token' }) } },
        );
      }
      ctx.principal = owner;
    } else if (local.acceptsCookie(ctx.head.pathname)) {
      const cookie = cookieValue(ctx.head.header('cookie'), localCookieName(portOf(ctx)));
      if (cookie !== undefined && local.credential.matches(cookie)) ctx.principal = owner;
    }
    return next();
  };
}

/** The value of cookie `name` in a `Cookie` header (RFC 6265 §5.4), if it is there. */
function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The port the request came to: the connection's, else the one its Host names. */
function portOf(ctx: { readonly localPort?: number; readonly head: { readonly host: string } }): number {
  if (ctx.localPort !== undefined) return ctx.localPort;
  const match = /:(\d{1,5})$/.exec(ctx.head.host);
  return match ? Number(match[1]) : 80;
}

function metadataResponse(request: Request, metadata: ResourceMetadataConfig, resource: string): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new HttpError(405, `Use GET for the protected resource metadata, not ${request.method}.`, {
      headers: { Allow: 'GET, HEAD' },
    });
  }
  const document = Response.json(metadataDocument(metadata, resource), {
    // Public by design (RFC 9728 §3): any client, browser or not, may read it.
    headers: { 'Access-Control-Allow-Origin': '*' },
  });
  return request.method === 'HEAD' ? new Response(null, document) : document;
}
