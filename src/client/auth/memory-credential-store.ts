import { SwitchboardError } from '../../core/errors.js';
import type { CredentialStore, StoredCredentials } from './credential-store.js';

/**
 * A `CredentialStore` in memory, for tests, one-shot clients and embedding apps that keep
 * nothing on disk. Values are deep-copied in and out (so a caller mutating what it loaded
 * cannot change the store), and `withLock` is a per-key FIFO lock within this process: two
 * refreshes of the same token run one after the other, never together.
 */
export class MemoryCredentialStore implements CredentialStore {
  private readonly entries = new Map<string, StoredCredentials>();
  /** The tail of each key's lock queue: a new holder waits for it, then becomes it. */
  private readonly locks = new Map<string, Promise<void>>();

  async load(server: string, issuer: string): Promise<StoredCredentials | undefined> {
    const found = this.entries.get(key(server, issuer));
    return found === undefined ? undefined : structuredClone(found);
  }

  async save(server: string, issuer: string, credentials: StoredCredentials): Promise<void> {
    this.entries.set(key(server, issuer), structuredClone(credentials));
  }

  async delete(server: string, issuer?: string): Promise<number> {
    let deleted = 0;
    for (const k of [...this.entries.keys()]) {
      const [s, i] = split(k);
      if (s === server && (issuer === undefined || i === issuer)) {
        this.entries.delete(k);
        deleted++;
      }
    }
    return deleted;
  }

  async issuers(server: string): Promise<string[]> {
    return [...this.entries.keys()].map(split).flatMap(([s, i]) => (s === server ? [i] : []));
  }

  async withLock<T>(
    server: string,
    issuer: string,
    fn: () => Promise<T>,
    options: { timeoutMs?: number } = {},
  ): Promise<T> {
    const k = key(server, issuer);
    const previous = this.locks.get(k) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.locks.set(k, tail);
    try {
      await waitFor(previous, options.timeoutMs ?? 30_000, server);
      return await fn();
    } finally {
      release();
      // The last holder leaves no entry behind.
      if (this.locks.get(k) === tail) this.locks.delete(k);
    }
  }
}

/** Waits for the previous holder; a holder that never lets go fails the waiter, not the process. */
async function waitFor(previous: Promise<void>, timeoutMs: number, server: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SwitchboardError(
            'STORAGE_FAILED',
            `Timed out after ${timeoutMs} ms waiting for the credentials lock of server "${server}". Another refresh is stuck; retry.`,
            { details: { server } },
          ),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([previous, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// A NUL cannot occur in a server name or an issuer URL, so it separates them unambiguously.
function key(server: string, issuer: string): string {
  return `${server}\u0000${issuer}`;
}

function split(k: string): [string, string] {
  const at = k.indexOf('\u0000');
  return [k.slice(0, at), k.slice(at + 1)];
}
