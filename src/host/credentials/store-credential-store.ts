/**
 * The store backend of `CredentialStore`, for the gateway: credentials in the store's `tokens`
 * table, encrypted with `CredentialCipher`, and `withLock` as a lease in its `locks` table, so
 * that every process on one database — not only on one machine — takes turns at refreshing.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { CredentialStore, StoredCredentials } from '../../client/auth/credential-store.js';
import {
  decodeCredentialDocument,
  encodeCredentialDocument,
} from '../../client/auth/file-credential-store.js';
import { SwitchboardError } from '../../core/errors.js';
import { KeyedQueue, pollWithBackoff } from '../../core/files/lock-waiting.js';
import type { Store } from '../../storage/ports.js';
import { CredentialCipher } from './credential-cipher.js';
import { type LoadSecretKeyOptions, loadSecretKey } from './secret-key.js';

/** Options of `StoreCredentialStore`. */
export interface StoreCredentialStoreOptions {
  /** The store; only its `tokens` and `locks` are used. */
  readonly store: Pick<Store, 'tokens' | 'locks'>;
  /** Encrypts and decrypts the stored text. */
  readonly cipher: CredentialCipher;
  /** How long `withLock` waits by default, in ms (30 s). */
  readonly lockTimeoutMs?: number;
  /**
   * How long a lease lasts, in ms (60 s). It is never renewed, so it must outlast any refresh;
   * a process that dies holding it blocks the others for at most this long.
   */
  readonly lockTtlMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_TTL_MS = 60_000;

/** `CredentialStore` over a `Store`, encrypted at rest; see the file comment. */
export class StoreCredentialStore implements CredentialStore {
  private readonly store: Pick<Store, 'tokens' | 'locks'>;
  private readonly cipher: CredentialCipher;
  private readonly lockTimeoutMs: number;
  private readonly lockTtlMs: number;
  /** This instance's callers queue in memory; other instances and processes meet in `locks`. */
  private readonly queue = new KeyedQueue();

  constructor(options: StoreCredentialStoreOptions) {
    this.store = options.store;
    this.cipher = options.cipher;
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.lockTtlMs = options.lockTtlMs ?? DEFAULT_TTL_MS;
  }

  async load(server: string, issuer: string): Promise<StoredCredentials | undefined> {
    const sealed = await this.store.tokens.get(server, issuer);
    if (sealed === undefined) return undefined;
    const text = this.cipher.open(
      sealed,
      [server, issuer],
      `the stored credentials of "${server}" at ${issuer}`,
    );
    const doc = decodeCredentialDocument(
      text,
      `credentials document of "${server}" at ${issuer} in the store`,
      `Delete it and log in to ${server} again.`,
    );
    return doc.credentials;
  }

  async save(server: string, issuer: string, credentials: StoredCredentials): Promise<void> {
    const text = encodeCredentialDocument(server, issuer, credentials);
    await this.store.tokens.set(server, issuer, this.cipher.seal(text, [server, issuer]));
  }

  delete(server: string, issuer?: string): Promise<number> {
    return this.store.tokens.delete(server, issuer);
  }

  issuers(server: string): Promise<string[]> {
    return this.store.tokens.issuers(server);
  }

  async withLock<T>(
    server: string,
    issuer: string,
    fn: () => Promise<T>,
    options: { timeoutMs?: number } = {},
  ): Promise<T> {
    const name = credentialLockName(server, issuer);
    const timeoutMs = options.timeoutMs ?? this.lockTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    // Unique per acquisition: a late release by a caller whose lease expired frees nothing.
    const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
    const locks = this.store.locks;
    const onTimeout = () => timeoutError(name, timeoutMs, 'another caller of this process holds it');
    return this.queue.run(
      name,
      async () => {
        await pollWithBackoff(
          deadline,
          async () => ((await locks.tryAcquire(name, owner, this.lockTtlMs)) ? true : undefined),
          async () => {
            const lease = await locks.holder(name);
            const who = lease
              ? `${lease.owner} holds it until ${lease.expiresAt.toISOString()}`
              : 'it was busy';
            return timeoutError(name, timeoutMs, who);
          },
        );
        try {
          return await fn();
        } finally {
          // A failed release is not `fn`'s failure: the lease expires on its own.
          await locks.release(name, owner).catch(() => undefined);
        }
      },
      { deadline, onTimeout },
    );
  }
}

/** The lease name of `server` at `issuer` (server names cannot contain `/`). */
export function credentialLockName(server: string, issuer: string): string {
  return `credentials/${server}/${issuer}`;
}

/**
 * A `StoreCredentialStore` with its key from `SWITCHBOARD_SECRET_KEY` or `<dataDir>/secret.key`
 * (see `loadSecretKey`), the usual way to build one.
 */
export async function openStoreCredentialStore(
  options: Omit<StoreCredentialStoreOptions, 'cipher'> & LoadSecretKeyOptions,
): Promise<StoreCredentialStore> {
  const key = await loadSecretKey(options);
  return new StoreCredentialStore({ ...options, cipher: new CredentialCipher(key) });
}

function timeoutError(name: string, timeoutMs: number, why: string): SwitchboardError {
  return new SwitchboardError(
    'STORAGE_FAILED',
    `Timed out after ${timeoutMs} ms waiting for the credentials lease "${name}": ${why}. Another ` +
      'Switchboard process is probably refreshing the same token; retry. A lease of a process that ' +
      'died expires on its own.',
    { details: { lock: name, reason: 'lock-timeout' } },
  );
}
