import type { FetchLike } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';
import { interpolate } from '../../core/interpolate.js';
import type { ServerConfig } from '../../core/server-config.js';
import type { CredentialStore } from './credential-store.js';
import { MemoryCredentialStore } from './memory-credential-store.js';
import { type AuthorizationHandler, OAuthSession } from './oauth-session.js';
import { resolveOAuthSettings } from './oauth-settings.js';

/**
 * How a remote server entry authenticates, resolved at connect time: a static bearer token
 * (`bearer`, `api_key`) becomes an `Authorization` header; `oauth` becomes an OAuthSession.
 */

export interface HttpAuthOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where OAuth credentials live. Default: one in-memory store per process. */
  readonly credentials?: CredentialStore;
  readonly onAuthorizationUrl?: AuthorizationHandler;
  /** For requests to authorization servers. */
  readonly fetch?: FetchLike;
  readonly log?: (text: string) => void;
  /** Overrides the entry's redirect URI (a login flow listening on its own port). */
  readonly redirectUri?: string;
}

export interface HttpAuth {
  /** Headers to add to every request (a static `Authorization`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly session?: OAuthSession;
}

const processCredentials = new MemoryCredentialStore();

/** The auth of `config` (an http/sse entry) for the URL it connects to. */
export function resolveHttpAuth(config: ServerConfig, url: string, options: HttpAuthOptions): HttpAuth {
  const auth = config.auth;
  if (!auth) return { headers: {} };
  if (auth.type === 'bearer') {
    const token = interpolate(auth.token, options.env, { server: config.name, field: 'auth.token' });
    return { headers: { Authorization: `Bearer ${token}` } };
  }
  const settings = resolveOAuthSettings(config.name, auth, options.env);
  return {
    headers: {},
    session: new OAuthSession({
      server: config.name,
      serverUrl: url,
      settings:
        options.redirectUri !== undefined ? { ...settings, redirectUri: options.redirectUri } : settings,
      store: options.credentials ?? processCredentials,
      ...(options.onAuthorizationUrl && { onAuthorizationUrl: options.onAuthorizationUrl }),
      ...(options.fetch && { fetch: options.fetch }),
      ...(options.log && { log: options.log }),
    }),
  };
}

/**
 * The OAuth session of a server entry, for a login flow: `startAuthorization()` gives the URL
 * to open, `completeAuthorization(redirectUrl)` finishes it; the tokens land in `credentials`,
 * where the server's connections find them. Throws CONFIG_INVALID for an entry without OAuth.
 */
export function createOAuthSession(
  config: ServerConfig,
  options: Omit<HttpAuthOptions, 'credentials'> & { readonly credentials: CredentialStore },
): OAuthSession {
  const t = config.transport;
  if (t.kind === 'stdio' || config.auth?.type !== 'oauth') {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Server "${config.name}" does not use OAuth; there is nothing to log in to. Add "auth": { "type": "oauth" } to a remote server's entry.`,
      { details: { server: config.name, field: 'auth' } },
    );
  }
  const url = interpolate(t.url, options.env, { server: config.name, field: 'url' });
  return resolveHttpAuth(config, url, options).session as OAuthSession;
}
