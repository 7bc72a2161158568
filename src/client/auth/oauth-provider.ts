import type {
  AddClientAuthentication,
  DpopSession,
  FetchLike,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { newState } from './auth-state.js';
import type { CredentialStore, StoredCredentials, StoredTokens } from './credential-store.js';
import type { AuthorizationDiscovery } from './discovery.js';
import type { DpopKeyring } from './dpop-keyring.js';
import { isLoopbackHost } from './endpoint-safety.js';
import { grantTypes, machineGrantRequest, privateKeyJwtAuth } from './grants.js';
import type { OAuthSettings } from './oauth-settings.js';
import { toStoredTokens } from './token-lifecycle.js';

/**
 * The SDK's `OAuthClientProvider`, backed by a `CredentialStore` and keyed by server and
 * authorization server (issuer), so credentials from one authorization server are never
 * offered to another (SEP-2352). The SDK's `auth()` drives it: registration (pre-registered,
 * Client ID Metadata Document, or dynamic), PKCE, the authorization URL, the code exchange
 * and machine grants. It never opens a browser: `redirectToAuthorization` only records the
 * URL, for the session to hand to whoever completes the login.
 */

/** What the provider works with; the session sets `discovery` before each `auth()` run. */
export interface ProviderContext {
  readonly server: string;
  readonly store: CredentialStore;
  /** Replaced when a login picks its own redirect URI (a loopback listener's port). */
  settings: OAuthSettings;
  readonly keyring: DpopKeyring;
  readonly fetch: FetchLike;
  readonly now: () => number;
  discovery?: AuthorizationDiscovery;
  /** The scope of the authorization under way, recorded with the tokens it yields. */
  requestedScope?: string;
}

/** StoredTokens of a DPoP-bound token: the thumbprint of the key it is bound to. */
interface DpopBoundTokens extends StoredTokens {
  readonly dpop_jkt?: string;
}

export class StoreBackedOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  readonly addClientAuthentication?: AddClientAuthentication;
  /** The authorization URL `auth()` produced, taken by the session. */
  private authorizationUrl?: URL;
  private state_?: string;
  /** The PKCE verifier of the login being completed. */
  private verifier?: string;

  constructor(private readonly ctx: ProviderContext) {
    const { clientMetadataUrl } = ctx.settings;
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
    const sign = privateKeyJwtAuth(ctx.settings);
    if (sign) this.addClientAuthentication = sign;
  }

  get redirectUrl(): string | undefined {
    // Machine grants have no redirect: the SDK then fetches tokens without a browser.
    return this.ctx.settings.grant === 'authorization_code' ? this.ctx.settings.redirectUri : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const interactive = this.redirectUrl !== undefined;
    const method = this.ctx.settings.tokenEndpointAuthMethod ?? this.preferredAuthMethod();
    return {
      client_name: 'Switchboard',
      redirect_uris: interactive ? [this.ctx.settings.redirectUri] : [],
      grant_types: grantTypes(this.ctx.settings),
      response_types: interactive ? ['code'] : [],
      ...(method !== undefined && { token_endpoint_auth_method: method }),
    };
  }

  /** The issuer the SDK is working with (its `ctx`), else the discovered one. */
  private issuer(ctx?: OAuthClientInformationContext): string {
    const issuer = ctx?.issuer ?? this.ctx.discovery?.issuer;
    if (issuer === undefined) throw new Error('OAuth discovery has not run for this server');
    return issuer;
  }

  state(): string {
    this.state_ = newState();
    return this.state_;
  }

  async clientInformation(
    ctx?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    return this.client(this.issuer(ctx), { forRedirect: this.redirectUrl });
  }

  /**
   * The client to refresh with. A refresh sends no redirect URI, so a registration made by a
   * login on another loopback port or path still serves (unlike for a new authorization).
   */
  clientForRefresh(issuer: string): Promise<StoredOAuthClientInformation | undefined> {
    return this.client(issuer, {});
  }

  private async client(
    issuer: string,
    options: { readonly forRedirect?: string },
  ): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret, tokenEndpointAuthMethod } = this.ctx.settings;
    if (clientId !== undefined) {
      return {
        client_id: clientId,
        ...(clientSecret !== undefined && { client_secret: clientSecret }),
        ...(tokenEndpointAuthMethod !== undefined && { token_endpoint_auth_method: tokenEndpointAuthMethod }),
        issuer,
      } as StoredOAuthClientInformation;
    }
    const client = (await this.ctx.store.load(this.ctx.server, issuer))?.client;
    if (client === undefined) return undefined;
    // A registration made for another redirect URI (or metadata document) is not ours to use now.
    const uris = 'redirect_uris' in client ? client.redirect_uris : undefined;
    const redirect = options.forRedirect;
    if (redirect !== undefined && uris !== undefined && !uris.some((u) => sameRedirect(u, redirect))) {
      return undefined;
    }
    if (isUrl(client.client_id) && this.clientMetadataUrl !== client.client_id) return undefined;
    return { ...client, issuer };
  }

  async saveClientInformation(
    info: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): Promise<void> {
    const { issuer: _stamp, ...client } = info;
    await this.update(this.issuer(ctx), (c) => ({ ...c, client }));
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const issuer = this.issuer(ctx);
    const tokens = (await this.ctx.store.load(this.ctx.server, issuer))?.tokens;
    if (tokens === undefined || !(await this.usable(tokens, issuer))) return undefined;
    return { ...tokens, issuer };
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = this.issuer(ctx);
    const jkt = tokens.token_type.toLowerCase() === 'dpop' ? (await this.dpop())?.thumbprint : undefined;
    await this.update(issuer, (c) => {
      const stored = toStoredTokens(tokens as OAuthTokens, this.ctx.now(), {
        ...(this.ctx.requestedScope !== undefined && { requestedScope: this.ctx.requestedScope }),
      });
      const { pending: _done, ...rest } = c;
      return {
        ...rest,
        tokens: jkt === undefined ? stored : ({ ...stored, dpop_jkt: jkt } as DpopBoundTokens),
      };
    });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  /** The authorization URL of the last `auth()` run, once. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.authorizationUrl;
    this.authorizationUrl = undefined;
    return url;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    const state = this.state_;
    if (state === undefined) throw new Error('no state was generated for this authorization');
    const startedAt = this.ctx.now();
    await this.update(this.issuer(), (c) => ({ ...c, pending: { codeVerifier, state, startedAt } }));
  }

  /** Sets the verifier of the login being completed (loaded with its pending state). */
  useCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no login is being completed');
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    const d = this.ctx.discovery;
    if (!d) return undefined;
    return {
      authorizationServerUrl: d.authorizationServerUrl,
      ...(d.resourceMetadataUrl !== undefined && { resourceMetadataUrl: d.resourceMetadataUrl }),
      ...(d.resourceMetadata && { resourceMetadata: d.resourceMetadata }),
      ...(d.metadata && { authorizationServerMetadata: d.metadata }),
    };
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'discovery') return;
    const issuer = this.issuer();
    if (scope === 'all') {
      await this.ctx.store.delete(this.ctx.server, issuer);
      return;
    }
    const field = scope === 'client' ? 'client' : scope === 'tokens' ? 'tokens' : 'pending';
    await this.update(issuer, (c) => {
      const { [field]: _dropped, ...rest } = c;
      return rest;
    });
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const d = this.ctx.discovery;
    return machineGrantRequest(
      this.ctx.settings,
      {
        issuer: d?.issuer ?? '',
        ...(d?.resourceMetadata && { resource: d.resourceMetadata.resource }),
        fetch: this.ctx.fetch,
      },
      scope,
    );
  }

  /**
   * DPoP (RFC 9449) when the resource server asks for it (a DPoP challenge, or its metadata
   * requires bound tokens) or the entry says `dpop: true`, and the authorization server can
   * bind tokens. Not merely because the authorization server offers it: many that do sit in
   * front of resource servers that accept Bearer tokens only. The SDK then signs token
   * requests, and the session's fetch presents `DPoP` tokens.
   */
  async dpop(): Promise<DpopSession | undefined> {
    const { dpop } = this.ctx.settings;
    const d = this.ctx.discovery;
    const algs = d?.metadata?.dpop_signing_alg_values_supported;
    const wanted = dpop === true || (dpop !== false && d?.dpopRequired === true);
    if (!wanted || d === undefined || (dpop !== true && !algs?.length)) return undefined;
    return this.ctx.keyring.session(this.ctx.server, d.issuer, algs);
  }

  /** A DPoP-bound token is usable only with the key it is bound to, which lives in this process. */
  private async usable(tokens: StoredTokens, issuer: string): Promise<boolean> {
    if (tokens.token_type.toLowerCase() !== 'dpop') return true;
    const jkt = (tokens as DpopBoundTokens).dpop_jkt;
    const key = await this.ctx.keyring.existing(this.ctx.server, issuer);
    return jkt !== undefined && key?.thumbprint === jkt;
  }

  /** The method to register with: none (a public client with PKCE) where the server allows it. */
  private preferredAuthMethod(): string | undefined {
    const supported = this.ctx.discovery?.metadata?.token_endpoint_auth_methods_supported;
    if (!supported) return undefined;
    return ['none', 'client_secret_basic', 'client_secret_post'].find((m) => supported.includes(m));
  }

  /** Read-modify-write of this server's credentials at `issuer`, under the store's lock. */
  private update(issuer: string, change: (current: StoredCredentials) => StoredCredentials): Promise<void> {
    const { store, server } = this.ctx;
    return store.withLock(server, issuer, async () => {
      const current = (await store.load(server, issuer)) ?? {};
      await store.save(server, issuer, change(current));
    });
  }
}

/** Equal, or loopback redirects that differ only in port (RFC 8252 §7.3: any port is allowed there). */
function sameRedirect(registered: string, wanted: string): boolean {
  if (registered === wanted) return true;
  try {
    const a = new URL(registered);
    const b = new URL(wanted);
    return (
      a.protocol === 'http:' &&
      b.protocol === 'http:' &&
      isLoopbackHost(a.hostname) &&
      a.hostname === b.hostname &&
      a.pathname === b.pathname &&
      a.search === b.search
    );
  } catch {
    return false;
  }
}

function isUrl(value: string): boolean {
  return /^https?:\/\//.test(value);
}
