import type { GatewayAuthConfig, ResourceMetadataConfig } from '../../../core/config/gateway-config.js';
import { isLoopbackAddress } from '../addresses.js';
import { bearerVerifier } from '../auth/bearer-verifier.js';
import { jwtVerifier } from '../auth/jwt-verifier.js';
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
 * this machine unless `insecure`. Modes `bearer` and `jwt`: the `Authorization: Bearer` token
 * is verified, and a missing or bad one gets 401 with a `WWW-Authenticate` challenge that,
 * when `resourceMetadata` is configured, points MCP clients at the RFC 9728 document. That
 * document is served here, without authentication, at `/.well-known/oauth-protected-resource<path>`.
 */
export function authenticate(options: AuthenticateOptions): Middleware {
  const { auth } = options;
  if (auth.mode === 'none') {
    // Managing servers needs a caller on this machine, also when --insecure lets others in.
    const here = createPrincipal({ id: 'anonymous', kind: 'anonymous', canManage: true });
    const elsewhere = createPrincipal({ id: 'anonymous', kind: 'anonymous', canManage: false });
    return (ctx, next) => {
      const local = isLoopbackAddress(ctx.remoteAddress);
      if (!options.insecure && !local) {
        throw new HttpError(403, 'This gateway takes requests from this machine only.');
      }
      ctx.principal = local ? here : elsewhere;
      return next();
    };
  }
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
