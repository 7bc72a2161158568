/**
 * The contract every `CredentialStore` backend must pass: files, the encrypted store, and any
 * in-memory one. Call `describeCredentialStoreContract` with a factory returning a fresh,
 * empty store (and how to close what it opened).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CredentialStore, StoredCredentials } from '../../../src/client/auth/credential-store.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { rejectionOf } from '../../helpers/rejection.js';

/** A store under test, and what to do when the test is over. */
export interface CredentialStoreFixture {
  readonly store: CredentialStore;
  close?(): Promise<void>;
}

/** Everything a store may hold, with `tag` woven into each secret. */
export function sampleCredentials(tag: string): StoredCredentials {
  return {
    tokens: {
      access_token: `access-${tag}-${'a'.repeat(40)}`,
      token_type: 'Bearer',
      refresh_token: `refresh-${tag}-${'r'.repeat(40)}`,
      scope: 'read write',
      expires_in: 3600,
      obtainedAt: 1_767_225_600_000,
      expiresAt: 1_767_229_200_000,
    },
    client: { client_id: `client-${tag}`, client_secret: `client-secret-${tag}` },
    discovery: {
      resourceMetadataUrl: 'https://mcp.example/.well-known/oauth-protected-resource',
      authorizationServer: {
        issuer: 'https://as.example',
        scopes: ['read', 'write'],
        nested: { none: null },
      },
      note: `ünïcödé ✓ ${tag}`,
    },
    pending: { codeVerifier: `verifier-${tag}`.padEnd(43, 'v'), state: `state-${tag}`, startedAt: 1 },
  };
}

/** A promise with its resolve function, for gates between concurrent callers. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets other queued work run a few times, so an overlap would show; not a wait for an event. */
async function yieldTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The behaviour every backend shares. */
export function describeCredentialStoreContract(
  label: string,
  factory: () => Promise<CredentialStoreFixture>,
): void {
  describe(`credential store contract: ${label}`, () => {
    const open: CredentialStoreFixture[] = [];
    async function fresh(): Promise<CredentialStore> {
      const fixture = await factory();
      open.push(fixture);
      return fixture.store;
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((f) => f.close?.()));
    });

    const issuer = 'https://as.example/tenant/42?x=1#frag';
    const other = 'https://other.example';

    it('starts empty', async () => {
      const store = await fresh();
      expect(await store.load('gh', issuer)).toBeUndefined();
      expect(await store.issuers('gh')).toEqual([]);
      expect(await store.delete('gh', issuer)).toBe(0);
      expect(await store.delete('gh')).toBe(0);
    });

    it('saves and loads everything, exactly', async () => {
      const store = await fresh();
      const saved = sampleCredentials('one');
      await store.save('gh', issuer, saved);
      expect(await store.load('gh', issuer)).toEqual(saved);
      // Only some parts: the rest stays absent.
      await store.save('gh', other, { client: { client_id: 'c' } });
      expect(await store.load('gh', other)).toEqual({ client: { client_id: 'c' } });
    });

    it('overwrites wholesale: what the new value lacks is gone', async () => {
      const store = await fresh();
      await store.save('gh', issuer, sampleCredentials('old'));
      const { pending: _pending, ...withoutPending } = sampleCredentials('new');
      await store.save('gh', issuer, withoutPending);
      const loaded = await store.load('gh', issuer);
      expect(loaded).toEqual(withoutPending);
      expect(loaded).not.toHaveProperty('pending');
      expect(await store.issuers('gh')).toEqual([issuer]);
    });

    it('keeps servers and issuers apart', async () => {
      const store = await fresh();
      await store.save('gh', issuer, sampleCredentials('gh-1'));
      await store.save('gh', other, sampleCredentials('gh-2'));
      await store.save('gh-enterprise', issuer, sampleCredentials('ghe'));
      await store.save('my.server_2', 'http://127.0.0.1:8080/', sampleCredentials('local'));

      expect((await store.load('gh', issuer))?.client?.client_id).toBe('client-gh-1');
      expect((await store.load('gh', other))?.client?.client_id).toBe('client-gh-2');
      expect((await store.load('gh-enterprise', issuer))?.client?.client_id).toBe('client-ghe');
      expect(await store.load('gh-enterprise', other)).toBeUndefined();
      expect([...(await store.issuers('gh'))].sort()).toEqual([issuer, other].sort());
      expect(await store.issuers('gh-enterprise')).toEqual([issuer]);
      expect(await store.issuers('my.server_2')).toEqual(['http://127.0.0.1:8080/']);
      expect(await store.issuers('g')).toEqual([]);
    });

    it('deletes one issuer, or every issuer of a server', async () => {
      const store = await fresh();
      await store.save('gh', issuer, sampleCredentials('1'));
      await store.save('gh', other, sampleCredentials('2'));
      await store.save('gl', issuer, sampleCredentials('3'));
      expect(await store.delete('gh', other)).toBe(1);
      expect(await store.delete('gh', other)).toBe(0);
      expect(await store.load('gh', other)).toBeUndefined();
      expect(await store.issuers('gh')).toEqual([issuer]);

      await store.save('gh', other, sampleCredentials('2'));
      expect(await store.delete('gh')).toBe(2);
      expect(await store.issuers('gh')).toEqual([]);
      expect(await store.load('gh', issuer)).toBeUndefined();
      // Another server's credentials are untouched.
      expect((await store.load('gl', issuer))?.client?.client_id).toBe('client-3');
    });

    it('withLock returns what fn returns, and passes its error through', async () => {
      const store = await fresh();
      expect(await store.withLock('gh', issuer, async () => 42)).toBe(42);
      const boom = new Error('refresh failed');
      expect(await rejectionOf(store.withLock('gh', issuer, () => Promise.reject(boom)))).toBe(boom);
      // Released after the throw: the next caller gets it at once.
      expect(await store.withLock('gh', issuer, async () => 'again', { timeoutMs: 5000 })).toBe('again');
    });

    it('withLock: callers of one key never overlap, and lose no update', async () => {
      const store = await fresh();
      await store.save('gh', issuer, { discovery: { count: 0 } });
      let inside = 0;
      let most = 0;
      const increment = () =>
        store.withLock('gh', issuer, async () => {
          inside += 1;
          most = Math.max(most, inside);
          const current = await store.load('gh', issuer);
          await yieldTurns(3);
          const count = (current?.discovery?.count as number) + 1;
          await store.save('gh', issuer, { discovery: { count } });
          inside -= 1;
        });
      await Promise.all(Array.from({ length: 8 }, increment));
      expect(most).toBe(1);
      expect((await store.load('gh', issuer))?.discovery?.count).toBe(8);
    });

    it('withLock: different servers and issuers are locked independently', async () => {
      const store = await fresh();
      // Each holder waits until the next has entered: this finishes only if they run side by side.
      const secondIn = gate();
      const thirdIn = gate();
      const order: string[] = [];
      const first = store.withLock('gh', issuer, async () => {
        order.push('first');
        await secondIn.promise;
      });
      const second = store.withLock(
        'gh',
        other,
        async () => {
          order.push('second');
          secondIn.open();
          await thirdIn.promise;
        },
        { timeoutMs: 5000 },
      );
      const third = store.withLock(
        'gl',
        issuer,
        async () => {
          order.push('third');
          thirdIn.open();
        },
        { timeoutMs: 5000 },
      );
      await Promise.all([first, second, third]);
      expect([...order].sort()).toEqual(['first', 'second', 'third']);
    });

    it('withLock: a waiter gives up after timeoutMs with a clear error; the holder is unaffected', async () => {
      const store = await fresh();
      const release = gate();
      const entered = gate();
      const holder = store.withLock('gh', issuer, async () => {
        entered.open();
        await release.promise;
        return 'held';
      });
      await entered.promise;
      let ran = false;
      const error = await rejectionOf(
        store.withLock(
          'gh',
          issuer,
          async () => {
            ran = true;
          },
          { timeoutMs: 50 },
        ),
      );
      expect(isSwitchboardError(error, 'STORAGE_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/Timed out after 50 ms/);
      expect(ran).toBe(false);
      release.open();
      expect(await holder).toBe('held');
      expect(await store.withLock('gh', issuer, async () => 'next', { timeoutMs: 5000 })).toBe('next');
    });
  });
}
