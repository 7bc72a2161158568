import {
  type CacheEntry,
  type CacheKey,
  InMemoryResponseCacheStore,
  type ResponseCacheStore,
} from '@modelcontextprotocol/client';

/**
 * The SDK client's response cache, with one change: tool definitions are stored without
 * their `outputSchema`. The SDK validates `structuredContent` against the cached schema and
 * throws on a mismatch, losing the result; Switchboard validates itself and reports a
 * mismatch inside the result instead. Everything else the SDK derives from the cached list
 * (SEP-2243 header mirroring and its HEADER_MISMATCH refresh) keeps working.
 */
export class ToolListStore implements ResponseCacheStore {
  private readonly inner = new InMemoryResponseCacheStore();

  get(key: CacheKey): CacheEntry | undefined {
    return this.inner.get(key);
  }

  set(key: CacheKey, entry: { value: string; expiresAt?: number; scope?: 'public' | 'private' }): number {
    if (key.method !== 'tools/list') return this.inner.set(key, entry);
    const list = JSON.parse(entry.value) as { tools?: Record<string, unknown>[] };
    for (const tool of list.tools ?? []) delete tool.outputSchema;
    return this.inner.set(key, { ...entry, value: JSON.stringify(list) });
  }

  delete(key: CacheKey): void {
    this.inner.delete(key);
  }

  evict(method: string): void {
    this.inner.evict(method);
  }

  clear(): void {
    this.inner.clear();
  }
}
