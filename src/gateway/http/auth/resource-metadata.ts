import type { ResourceMetadataConfig } from '../../../core/config/gateway-config.js';

/**
 * OAuth discovery for MCP clients: the RFC 9728 protected resource metadata document and the
 * RFC 6750 `WWW-Authenticate: Bearer` challenge that points at it (MCP authorization spec,
 * "Authorization Server Discovery"). Pure.
 */

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** RFC 9728 §3.1: the well-known segment goes between the host and the resource's path. */
export function metadataPath(resourcePath: string): string {
  const trimmed = resourcePath.length > 1 ? resourcePath.replace(/\/+$/, '') : resourcePath;
  return trimmed === '/' || trimmed === '' ? WELL_KNOWN : `${WELL_KNOWN}${trimmed}`;
}

/** The resource identifier: the configured public URL, else the request's origin and `path`. */
export function resourceUrl(metadata: ResourceMetadataConfig, request: Request, path: string): string {
  return metadata.resource ?? `${new URL(request.url).origin}${path}`;
}

/** Where the metadata of `resource` is published. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${metadataPath(url.pathname)}`;
}

/** The RFC 9728 §2 document. Tokens are accepted in the Authorization header only. */
export function metadataDocument(
  metadata: ResourceMetadataConfig,
  resource: string,
): Record<string, unknown> {
  return {
    resource,
    authorization_servers: metadata.authorizationServers,
    ...(metadata.scopesSupported && { scopes_supported: metadata.scopesSupported }),
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard',
  };
}

/** An RFC 9110 quoted-string: `\` and `"` escaped, anything unprintable replaced. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7e]/g, ' ')}"`;
}

/**
 * The `WWW-Authenticate` value of a 401. Without a token the challenge carries no error code
 * (RFC 6750 §3.1); with a bad one, `error="invalid_token"` and what was wrong. The
 * `resource_metadata` parameter is RFC 9728 §5.1.
 */
export function bearerChallenge(options: { description?: string; resourceMetadataUrl?: string }): string {
  const params: string[] = [];
  if (options.description !== undefined) {
    params.push(`error="invalid_token"`, `error_description=${quoted(options.description)}`);
  }
  if (options.resourceMetadataUrl !== undefined) {
    params.push(`resource_metadata=${quoted(options.resourceMetadataUrl)}`);
  }
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}
