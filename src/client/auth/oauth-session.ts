import {
  type AuthProvider,
  auth,
  extractWWWAuthenticateParams,
  type FetchLike,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import {
  SERVER_ADDRESS,
  SPAN_OAUTH_REFRESH,
  SWITCHBOARD_ANSWER,
  SWITCHBOARD_SERVER,
} from '../../core/telemetry/semconv.js';
import { stepSpan } from '../../core/telemetry/step-span.js';
import { authRequired, toAuthError } from './auth-errors.js';
import { completeLogin } from './authorization-completion.js';
import type { CredentialStore, StoredCredentials, StoredTokens } from './credential-store.js';
import { type AuthorizationDiscovery, discoverAuthorization, storedDiscovery } from './discovery.js';
import { type DpopKeyring, processDpopKeyring } from './dpop-keyring.js';
import { machineGrant } from './grants.js';
import { type ProviderContext, StoreBackedOAuthProvider } from './oauth-provider.js';
import type { OAuthSettings } from './oauth-settings.js';
import { chooseScope } from './scopes.js';
import { REFRESH_SKEW_MS, tokenState } from './token-lifecycle.js';
import { refreshTokens } from './token-refresh.js';

/**
 * OAuth for one MCP server: what the transport calls before each request (`authProvider`)
 * and on 401, and what a login flow calls (`startAuthorization`, `completeAuthorization`).
 * The SDK's `auth()` does registration, PKCE, the authorization URL, the code exchange and
 * machine grants; around it this adds what the SDK leaves out or gets wrong: validated
 * discovery (discovery.ts), a refresh ahead of expiry and under the store's lock
 * (token-refresh.ts), a `state` that is checked on the way back, a login only when someone
 * can complete it, and typed errors (AUTH_REQUIRED with the command that fixes it).
 */

/** An authorization URL for a person to open. */
export interface AuthorizationRequest {
  readonly server: string;
  readonly url: URL;
  /** Where the browser comes back to; the redirect URL passed back starts with it. */
  readonly redirectUri: string;
}

/**
 * Shows an authorization URL to someone. Resolving with the redirect URL the browser came back
 * to (a loopback listener, a headless driver) completes the login in place; resolving with
 * nothing leaves it to `completeAuthorization` later, and the request fails AUTH_REQUIRED.
 */
export type AuthorizationHandler = (
  request: AuthorizationRequest,
) => Promise<string | URL | undefined> | string | URL | undefined;

export interface OAuthSessionOptions {
  /** The server's name: credentials are kept under it. */
  readonly server: string;
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly store: CredentialStore;
  /** Without one, a connect that needs a login fails AUTH_REQUIRED before starting one. */
  readonly onAuthorizationUrl?: AuthorizationHandler;
  /** For requests to authorization servers. Default: global fetch. */
  readonly fetch?: FetchLike;
  readonly now?: () => number;
  readonly keyring?: DpopKeyring;
  readonly refreshSkewMs?: number;
  readonly log?: (text: string) => void;
}

/** What `startAuthorization` produced: a URL to open, or tokens already (machine grants). */
export type AuthorizationStart =
  | { readonly kind: 'redirect'; readonly url: URL; readonly redirectUri: string }
  | { readonly kind: 'authorized' };

export class OAuthSession {
  /** For the transport: the token before each request, recovery after a 401. */
  readonly authProvider: AuthProvider;
  /** The provider the SDK drives (exposed for the request middleware). */
  readonly provider: StoreBackedOAuthProvider;
  private readonly ctx: ProviderContext;
  private readonly serverUrl: string;
  private readonly onAuthorizationUrl?: AuthorizationHandler;
  private readonly skewMs: number;
  private readonly log: (text: string) => void;
  /** The access token last handed to the transport. */
  private lastToken?: string;
  /** Set when the authorization server rejected the refresh token. */
  private grantRejected = false;
  private inFlight?: Promise<void>;
  /** The resource server challenged with the DPoP scheme. */
  private dpopChallenged = false;

  constructor(options: OAuthSessionOptions) {
    this.ctx = {
      server: options.server,
      store: options.store,
      settings: options.settings,
      keyring: options.keyring ?? processDpopKeyring,
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      now: options.now ?? Date.now,
    };
    this.serverUrl = options.serverUrl;
    if (options.onAuthorizationUrl) this.onAuthorizationUrl = options.onAuthorizationUrl;
    this.skewMs = options.refreshSkewMs ?? REFRESH_SKEW_MS;
    this.log = options.log ?? (() => {});
    this.provider = new StoreBackedOAuthProvider(this.ctx);
    this.authProvider = {
      token: () => this.accessToken(),
      onUnauthorized: ({ response }) => this.handleUnauthorized(response),
    };
  }

  get server(): string {
    return this.ctx.server;
  }

  /** What discovery found (on a 401 or a login), or what was stored with the tokens in use. */
  get discovery(): AuthorizationDiscovery | undefined {
    return this.ctx.discovery;
  }

  /** The scope the current authorization asked for. */
  get requestedScope(): string | undefined {
    return this.ctx.requestedScope;
  }

  /**
   * The access token to send, refreshed first when it expires within the skew (60 s). A
   * token that has expired and cannot be refreshed is not sent: the server's 401 starts
   * recovery instead.
   */
  async accessToken(): Promise<string | undefined> {
    const issuer = await this.currentIssuer();
    if (issuer === undefined) return undefined;
    let tokens = await this.provider.tokens({ issuer });
    if (!tokens) return undefined;
    if (tokenState(tokens as StoredTokens, this.ctx.now(), this.skewMs) !== 'fresh') {
      tokens =
        (await this.renew(issuer, tokens).catch((error: unknown) => {
          this.log(`OAuth: renewing the access token failed: ${describeError(error)}`);
          return undefined;
        })) ?? tokens;
    }
    if (tokenState(tokens as StoredTokens, this.ctx.now(), 0) === 'expired') return undefined;
    this.lastToken = tokens.access_token;
    return tokens.access_token;
  }

  /** New tokens ahead of expiry: a refresh, or for a machine grant the grant again. */
  private async renew(issuer: string, tokens: StoredOAuthTokens): Promise<StoredOAuthTokens | undefined> {
    if (tokens.refresh_token) return this.refresh(issuer, tokens.access_token);
    if (this.ctx.settings.grant === 'authorization_code' || !this.ctx.discovery) return undefined;
    const scope = tokens.scope;
    await this.exclusive(() => this.authorize(scope));
    return this.provider.tokens({ issuer });
  }

  /**
   * Starts a login without waiting for a 401: discovery from the well-known URLs, then the
   * authorization URL (machine grants get their tokens at once). `redirectUri` replaces the
   * entry's for this session (a loopback listener on a port of its own).
   */
  async startAuthorization(options: { redirectUri?: string } = {}): Promise<AuthorizationStart> {
    if (options.redirectUri !== undefined) {
      this.ctx.settings = { ...this.ctx.settings, redirectUri: options.redirectUri };
    }
    try {
      const discovery = await this.discover(undefined);
      const url = await this.beginAuthorization(this.initialScope(undefined, discovery));
      return url
        ? { kind: 'redirect', url, redirectUri: this.ctx.settings.redirectUri }
        : { kind: 'authorized' };
    } catch (error) {
      throw toAuthError(error, this.server);
    }
  }

  /**
   * Completes a login with the URL the browser was redirected to: the `state` must match a
   * login started here (else the code is never exchanged), `iss` must be the recorded issuer
   * (RFC 9207), and only then is the code exchanged for tokens, which are stored.
   */
  async completeAuthorization(redirectUrl: string | URL): Promise<void> {
    await completeLogin(this.ctx, this.provider, this.serverUrl, redirectUrl);
    this.grantRejected = false;
    this.log('OAuth: login completed');
  }

  /** Recovery after a 401: refresh, or a new authorization (machine grant, or a login). */
  private async handleUnauthorized(response: Response): Promise<void> {
    const challenge = extractWWWAuthenticateParams(response);
    // A challenge in the DPoP scheme (RFC 9449 §7.1) says this resource server wants
    // DPoP-bound tokens; an authorization server merely offering DPoP does not.
    if (/^\s*dpop\b/i.test(response.headers.get('www-authenticate') ?? '')) this.dpopChallenged = true;
    await this.exclusive(() => this.recover(challenge.resourceMetadataUrl?.href, challenge.scope));
  }

  private async recover(
    resourceMetadataUrl: string | undefined,
    challenged: string | undefined,
  ): Promise<void> {
    try {
      // Discovery again on every 401: the server may have moved to another authorization server.
      const discovery = await this.discover(resourceMetadataUrl);
      const stored = await this.provider.tokens({ issuer: discovery.issuer });
      if (
        stored &&
        stored.access_token !== this.lastToken &&
        tokenState(stored as StoredTokens, this.ctx.now(), 0) !== 'expired'
      ) {
        return; // refreshed meanwhile: the retry uses it
      }
      if (stored?.refresh_token && (await this.refresh(discovery.issuer, stored.access_token))) return;
      await this.authorize(this.initialScope(challenged, discovery));
    } catch (error) {
      throw toAuthError(error, this.server);
    }
  }

  /**
   * Re-authorizes with a wider scope after `403 insufficient_scope` (SEP-2350), serialized
   * with any other recovery. Used by the request middleware.
   */
  async stepUp(scope: string, resourceMetadataUrl: string | undefined): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => undefined);
    this.inFlight = (async () => {
      try {
        await this.discover(resourceMetadataUrl);
        await this.authorize(scope);
      } catch (error) {
        throw toAuthError(error, this.server);
      }
    })().finally(() => {
      this.inFlight = undefined;
    });
    await this.inFlight;
  }

  /** New tokens: a machine grant at once; a login only when someone can complete it. */
  private async authorize(scope: string | undefined): Promise<void> {
    const { server, settings } = this.ctx;
    if (settings.grant === 'authorization_code' && !this.onAuthorizationUrl) {
      throw authRequired(
        server,
        this.grantRejected ? 'its refresh token was rejected' : 'it has no valid access token',
        {
          reason: this.grantRejected ? 'grant_rejected' : 'login_required',
        },
      );
    }
    const url = await this.beginAuthorization(scope);
    if (!url || !this.onAuthorizationUrl) return;
    this.log(`OAuth: authorization needed at ${url.origin}`);
    const redirect = await this.onAuthorizationUrl({ server, url, redirectUri: settings.redirectUri });
    if (redirect === undefined) {
      throw authRequired(server, 'a login was started and is waiting to be completed', {
        reason: 'authorization_pending',
        authorizationUrl: url.href,
      });
    }
    await this.completeAuthorization(redirect);
  }

  /** A fresh authorization: tokens at once for a machine grant, else the authorization URL. */
  private async beginAuthorization(scope: string | undefined): Promise<URL | undefined> {
    this.ctx.requestedScope = scope;
    if (this.ctx.settings.grant !== 'authorization_code') {
      await machineGrant(this.ctx, this.provider, scope);
      this.grantRejected = false;
      this.log('OAuth: tokens obtained');
      return undefined;
    }
    const result = await auth(this.provider, {
      serverUrl: this.serverUrl,
      ...(scope !== undefined && { scope }),
      fetchFn: this.ctx.fetch,
      // Refreshing is ours (under the store's lock); here the point is a new grant.
      forceReauthorization: true,
    });
    if (result === 'AUTHORIZED') {
      this.grantRejected = false;
      this.log('OAuth: tokens obtained');
      return undefined;
    }
    const url = this.provider.takeAuthorizationUrl();
    if (!url) throw new Error('the SDK asked for a redirect without an authorization URL');
    return url;
  }

  private initialScope(
    challenged: string | undefined,
    discovery: AuthorizationDiscovery,
  ): string | undefined {
    return chooseScope({
      ...(challenged !== undefined && { challenged }),
      ...(this.ctx.settings.scopes && { configured: this.ctx.settings.scopes }),
      ...(discovery.resourceMetadata?.scopes_supported && {
        resourceScopes: discovery.resourceMetadata.scopes_supported,
      }),
      ...(discovery.metadata?.scopes_supported && { serverScopes: discovery.metadata.scopes_supported }),
      wantsRefresh: this.ctx.settings.grant === 'authorization_code',
    });
  }

  private async refresh(issuer: string, stale: string): Promise<StoredTokens | undefined> {
    const creds = await this.ctx.store.load(this.server, issuer);
    const discovery =
      (this.ctx.discovery?.issuer === issuer ? this.ctx.discovery : undefined) ??
      storedDiscovery(creds) ??
      (await this.discover(undefined));
    this.ctx.discovery = discovery;
    // A span of its own (under the request that needed fresh tokens, if one is traced).
    const outcome = await stepSpan(
      SPAN_OAUTH_REFRESH,
      {
        attributes: () => ({ [SWITCHBOARD_SERVER]: this.server, [SERVER_ADDRESS]: new URL(issuer).hostname }),
        ended: (result) => ({ [SWITCHBOARD_ANSWER]: result.kind }),
      },
      () => refreshTokens(this.ctx, this.provider, discovery, stale),
    );
    if (outcome.kind === 'rejected') {
      this.grantRejected = true;
      this.log(`OAuth: the refresh token was rejected (${outcome.error.message}); a login is needed`);
    }
    return outcome.kind === 'refreshed' ? outcome.tokens : undefined;
  }

  private async discover(resourceMetadataUrl: string | undefined): Promise<AuthorizationDiscovery> {
    const discovery = await discoverAuthorization({
      server: this.server,
      serverUrl: this.serverUrl,
      ...(resourceMetadataUrl !== undefined && { resourceMetadataUrl }),
      ...(this.ctx.settings.issuer !== undefined && { issuer: this.ctx.settings.issuer }),
      dpopChallenged: this.dpopChallenged,
      fetch: this.ctx.fetch,
    });
    this.ctx.discovery = discovery;
    const { store } = this.ctx;
    await store.withLock(this.server, discovery.issuer, async () => {
      const current = (await store.load(this.server, discovery.issuer)) ?? {};
      await store.save(this.server, discovery.issuer, { ...current, discovery: { ...discovery } });
    });
    return discovery;
  }

  /** The discovered issuer, else the one whose stored tokens are the newest. */
  private async currentIssuer(): Promise<string | undefined> {
    if (this.ctx.discovery) return this.ctx.discovery.issuer;
    let best: { issuer: string; at: number; creds: StoredCredentials } | undefined;
    for (const issuer of await this.ctx.store.issuers(this.server)) {
      const creds = await this.ctx.store.load(this.server, issuer);
      const at = creds?.tokens?.obtainedAt;
      if (creds && at !== undefined && (!best || at > best.at)) best = { issuer, at, creds };
    }
    // What discovery found when these tokens were obtained: for DPoP and refreshes, until a 401
    // makes us look again.
    const found = storedDiscovery(best?.creds);
    if (found?.issuer === best?.issuer) this.ctx.discovery = found;
    return best?.issuer;
  }

  /** Runs `fn` unless another recovery is under way, in which case that one is awaited instead. */
  private exclusive(fn: () => Promise<void>): Promise<void> {
    this.inFlight ??= fn().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }
}
