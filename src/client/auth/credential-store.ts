import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';

/**
 * Where OAuth credentials live between runs: per server and authorization server (issuer).
 * Two backends implement it — files under the data dir (the CLI and embedding apps) and the
 * store, encrypted at rest (the gateway) — and both pass the same contract tests. Every write
 * is atomic: a crash mid-write leaves the previous credentials, never a torn file.
 */

/** Tokens as stored: what the token endpoint returned, and when, so expiry is known later. */
export interface StoredTokens extends OAuthTokens {
  /** When the tokens were obtained, ms since the epoch. */
  readonly obtainedAt: number;
  /** When the access token expires, ms since the epoch (from `expires_in`); absent if unknown. */
  readonly expiresAt?: number;
}

/** Everything kept for one server at one authorization server. */
export interface StoredCredentials {
  readonly tokens?: StoredTokens;
  /** The client registration (pre-registered, dynamic, or a Client ID Metadata Document URL). */
  readonly client?: OAuthClientInformationMixed;
  /** Discovery results worth keeping across runs (resource metadata URL, AS metadata). */
  readonly discovery?: Readonly<Record<string, unknown>>;
  /** A login in progress: PKCE verifier and state, until the redirect comes back. */
  readonly pending?: { readonly codeVerifier: string; readonly state: string; readonly startedAt: number };
}

export interface CredentialStore {
  /** The credentials of `server` at `issuer`, or undefined. */
  load(server: string, issuer: string): Promise<StoredCredentials | undefined>;
  /** Replaces them, atomically. */
  save(server: string, issuer: string, credentials: StoredCredentials): Promise<void>;
  /** Deletes them (every issuer's when `issuer` is omitted); returns how many were deleted. */
  delete(server: string, issuer?: string): Promise<number>;
  /** The issuers `server` has credentials for. */
  issuers(server: string): Promise<string[]>;
  /**
   * Runs `fn` holding an exclusive lock on `server` at `issuer` across processes, so that two
   * processes never refresh the same token at once (a rotated refresh token replayed gets the
   * grant revoked at some providers). Waits at most `timeoutMs` (default 30 s) for the lock;
   * a lock left by a dead process is taken over.
   */
  withLock<T>(
    server: string,
    issuer: string,
    fn: () => Promise<T>,
    options?: { timeoutMs?: number },
  ): Promise<T>;
}
