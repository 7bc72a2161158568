/**
 * Secrets a person typed (login passwords, key passphrases, sudo passwords), remembered in
 * this process's memory only, each for a fixed lifetime from when it was given — never
 * written anywhere, never returned by a tool, dropped the moment the server rejects it so the
 * next attempt asks again.
 */

/** A clock in milliseconds; tests pass their own. */
export type Clock = () => number;

/** A map of secrets that forgets each one `ttlMs` after it was stored. */
export class SecretCache {
  private readonly entries = new Map<string, { value: string; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  /** The secret for `key` if it is still within its lifetime (an expired one is forgotten). */
  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.expires) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Remembers a secret; its lifetime starts now and is not extended by use. */
  set(key: string, value: string): void {
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  /** Forgets a secret (after the server refused it, or on disconnect). */
  drop(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every secret. */
  clear(): void {
    this.entries.clear();
  }

  /** How many secrets are held now (expired ones are counted until next looked up). */
  get size(): number {
    return this.entries.size;
  }
}
