import { describe, expect, it } from 'vitest';
import { MemoryCredentialStore } from '../../../src/client/auth/memory-credential-store.js';
import { describeCredentialStoreContract } from './credential-store-contract.js';

describeCredentialStoreContract('memory', async () => ({ store: new MemoryCredentialStore() }));

describe('MemoryCredentialStore', () => {
  it('keeps credentials per server and issuer, as copies', async () => {
    const store = new MemoryCredentialStore();
    const creds = { client: { client_id: 'c1' } };
    await store.save('gh', 'https://a.example', creds);
    await store.save('gh', 'https://b.example', { client: { client_id: 'c2' } });
    await store.save('other', 'https://a.example', { client: { client_id: 'c3' } });
    creds.client.client_id = 'changed';
    const loaded = await store.load('gh', 'https://a.example');
    expect(loaded?.client?.client_id).toBe('c1');
    (loaded?.client as { client_id: string }).client_id = 'mutated';
    expect((await store.load('gh', 'https://a.example'))?.client?.client_id).toBe('c1');
    expect((await store.issuers('gh')).sort()).toEqual(['https://a.example', 'https://b.example']);
    expect(await store.delete('gh', 'https://b.example')).toBe(1);
    expect(await store.delete('gh')).toBe(1);
    expect(await store.issuers('gh')).toEqual([]);
    expect(await store.issuers('other')).toEqual(['https://a.example']);
  });

  it('runs holders of one lock one after the other, and other keys in parallel', async () => {
    const store = new MemoryCredentialStore();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = store.withLock('s', 'i', async () => {
      events.push('first in');
      await firstHolds;
      events.push('first out');
      return 1;
    });
    const second = store.withLock('s', 'i', async () => {
      events.push('second in');
      return 2;
    });
    const other = await store.withLock('s', 'other', async () => {
      events.push('other key');
      return 3;
    });
    expect(other).toBe(3);
    releaseFirst();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(['first in', 'other key', 'first out', 'second in']);
  });

  it('releases the lock when the holder throws, and times out a waiter', async () => {
    const store = new MemoryCredentialStore();
    await expect(store.withLock('s', 'i', async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await store.withLock('s', 'i', async () => 'next')).toBe('next');
    let release!: () => void;
    const held = store.withLock('s', 'i', () => new Promise<void>((resolve) => (release = resolve)));
    await expect(store.withLock('s', 'i', async () => 'late', { timeoutMs: 20 })).rejects.toMatchObject({
      code: 'STORAGE_FAILED',
    });
    release();
    await held;
  });
});
