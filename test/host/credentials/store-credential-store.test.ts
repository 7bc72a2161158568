import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialCipher } from '../../../src/host/credentials/credential-cipher.js';
import { SECRET_KEY_ENV } from '../../../src/host/credentials/secret-key.js';
import {
  credentialLockName,
  openStoreCredentialStore,
  StoreCredentialStore,
} from '../../../src/host/credentials/store-credential-store.js';
import { openSqliteStore, type Store } from '../../../src/storage/index.js';
import {
  describeCredentialStoreContract,
  sampleCredentials,
} from '../../client/auth/credential-store-contract.js';
import { rejection } from '../../helpers/rejection.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-store-credentials-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
function newFile(): string {
  counter += 1;
  return join(root, `data-${counter}`, 'switchboard.db');
}
const newCipher = (source = 'a test key') => new CredentialCipher({ bytes: randomBytes(32), source });
const issuer = 'https://as.example/tenant';

describeCredentialStoreContract('encrypted sqlite store', async () => {
  const store = await openSqliteStore({ memory: true });
  return { store: new StoreCredentialStore({ store, cipher: newCipher() }), close: () => store.close() };
});

/** Runs `fn` with a fresh in-memory store, closed afterwards. */
async function withStore(fn: (store: Store) => Promise<void>): Promise<void> {
  const store = await openSqliteStore({ memory: true });
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

describe('StoreCredentialStore encryption', () => {
  it('stores only ciphertext, prefixed with the format and key id, fresh each write', () =>
    withStore(async (store) => {
      const cipher = newCipher();
      const credentials = new StoreCredentialStore({ store, cipher });
      const saved = sampleCredentials('secret');
      await credentials.save('gh', issuer, saved);
      const first = (await store.tokens.get('gh', issuer))!;
      expect(first).toMatch(new RegExp(`^sbc1:${cipher.keyId}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
      for (const secret of [
        saved.tokens!.access_token,
        saved.tokens!.refresh_token!,
        'client-secret-secret',
        saved.pending!.codeVerifier,
        'access-',
        'secret',
        issuer,
      ])
        expect(first).not.toContain(secret);
      await credentials.save('gh', issuer, saved);
      expect(await store.tokens.get('gh', issuer)).not.toBe(first);
      expect(await credentials.load('gh', issuer)).toEqual(saved);
    }));

  it('refuses altered ciphertext', () =>
    withStore(async (store) => {
      const credentials = new StoreCredentialStore({ store, cipher: newCipher() });
      await credentials.save('gh', issuer, sampleCredentials('x'));
      const sealed = (await store.tokens.get('gh', issuer))!;
      const [format, keyId, iv, data] = sealed.split(':') as [string, string, string, string];
      const flip = (text: string, at: number) =>
        `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
      const altered = [
        [format, keyId, iv, flip(data, 10)],
        [format, keyId, iv, flip(data, data.length - 3)],
        [format, keyId, flip(iv, 2), data],
        [format, keyId, iv, data.slice(0, 10)],
        ['sbc9', keyId, iv, data],
        [format, keyId, iv],
      ];
      for (const parts of altered) {
        await store.tokens.set('gh', issuer, parts.join(':'));
        const error = await rejection(credentials.load('gh', issuer));
        expect(error.code).toBe('STORAGE_FAILED');
        expect(error.message).toContain('"gh"');
        expect(error.message).toMatch(/log in again/);
      }
      await store.tokens.set('gh', issuer, 'plain text, not sealed');
      expect((await rejection(credentials.load('gh', issuer))).message).toMatch(/not in an encrypted format/);
    }));

  it('refuses a row moved to another server or issuer', () =>
    withStore(async (store) => {
      const credentials = new StoreCredentialStore({ store, cipher: newCipher() });
      await credentials.save('gh', issuer, sampleCredentials('x'));
      const sealed = (await store.tokens.get('gh', issuer))!;
      for (const [server, to] of [
        ['gl', issuer],
        ['gh', 'https://evil.example'],
      ] as const) {
        await store.tokens.set(server, to, sealed);
        const error = await rejection(credentials.load(server, to));
        expect(error.code).toBe('STORAGE_FAILED');
        expect(error.message).toMatch(/integrity check/);
        expect(error.message).toMatch(/copied from another server's or issuer's row/);
      }
      expect(await credentials.load('gh', issuer)).toEqual(sampleCredentials('x'));
    }));

  it('names the key it expects when the key is wrong, and never returns garbage', () =>
    withStore(async (store) => {
      const writer = newCipher();
      await new StoreCredentialStore({ store, cipher: writer }).save('gh', issuer, sampleCredentials('x'));
      const reader = newCipher(SECRET_KEY_ENV);
      const error = await rejection(new StoreCredentialStore({ store, cipher: reader }).load('gh', issuer));
      expect(error.code).toBe('STORAGE_FAILED');
      expect(error.details).toMatchObject({ expectedKeyId: writer.keyId, keyId: reader.keyId });
      expect(error.message).toContain(`encrypted with key ${writer.keyId}`);
      expect(error.message).toContain(`from ${SECRET_KEY_ENV}, is ${reader.keyId}`);

      // A forged key id does not help: the id is authenticated too.
      const sealed = (await store.tokens.get('gh', issuer))!;
      await store.tokens.set('gh', issuer, sealed.replace(writer.keyId, reader.keyId));
      const forged = await rejection(new StoreCredentialStore({ store, cipher: reader }).load('gh', issuer));
      expect(forged.message).toMatch(/integrity check/);
    }));

  it('refuses an authentic row whose content is not a credentials document', () =>
    withStore(async (store) => {
      const cipher = newCipher();
      await store.tokens.set('gh', issuer, cipher.seal('{"version": 1, "server"', ['gh', issuer]));
      const error = await rejection(new StoreCredentialStore({ store, cipher }).load('gh', issuer));
      expect(error.code).toBe('STORAGE_FAILED');
      expect(error.message).toMatch(/credentials document of "gh" .* is not valid JSON/);
    }));

  it('openStoreCredentialStore takes its key from the environment or the key file', () =>
    withStore(async (store) => {
      const dataDir = join(root, `key-${counter++}`);
      const env = { [SECRET_KEY_ENV]: randomBytes(32).toString('base64') };
      await (await openStoreCredentialStore({ store, dataDir, env })).save(
        'gh',
        issuer,
        sampleCredentials('e'),
      );
      const again = await openStoreCredentialStore({ store, dataDir, env });
      expect(await again.load('gh', issuer)).toEqual(sampleCredentials('e'));
      // Without the variable, the key file's key is another key.
      const fromFile = await openStoreCredentialStore({ store, dataDir, env: {} });
      const error = await rejection(fromFile.load('gh', issuer));
      expect(error.message).toContain(join(dataDir, 'secret.key'));
      await fromFile.save('gl', issuer, sampleCredentials('f'));
      const fromFileAgain = await openStoreCredentialStore({ store, dataDir, env: {} });
      expect(await fromFileAgain.load('gl', issuer)).toEqual(sampleCredentials('f'));
    }));
});

describe('StoreCredentialStore leases', () => {
  /** Two stores over one SQLite file, as two processes would have them. */
  async function twoProcesses(clockOfFirst?: () => Date) {
    const file = newFile();
    const a = await openSqliteStore({ file, ...(clockOfFirst && { clock: clockOfFirst }) });
    const b = await openSqliteStore({ file });
    const cipher = newCipher();
    return {
      a,
      b,
      first: new StoreCredentialStore({ store: a, cipher }),
      second: new StoreCredentialStore({ store: b, cipher }),
      close: () => Promise.all([a.close(), b.close()]),
    };
  }

  it('two stores on one database never hold the lock at once, and lose no update', async () => {
    const { first, second, close } = await twoProcesses();
    try {
      await first.save('gh', issuer, { discovery: { count: 0 } });
      let inside = 0;
      let most = 0;
      const increment = (credentials: StoreCredentialStore) =>
        credentials.withLock('gh', issuer, async () => {
          inside += 1;
          most = Math.max(most, inside);
          const count = ((await credentials.load('gh', issuer))?.discovery?.count as number) + 1;
          await new Promise((resolve) => setImmediate(resolve));
          await credentials.save('gh', issuer, { discovery: { count } });
          inside -= 1;
        });
      await Promise.all(Array.from({ length: 10 }, (_, i) => increment(i % 2 ? first : second)));
      expect(most).toBe(1);
      expect((await second.load('gh', issuer))?.discovery?.count).toBe(10);
    } finally {
      await close();
    }
  });

  it('a waiter on another store times out naming the holder; the lease is gone afterwards', async () => {
    const { a, first, second, close } = await twoProcesses();
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const holder = first.withLock('gh', issuer, async () => {
        entered();
        await held;
      });
      await inside;
      const lease = await a.locks.holder(credentialLockName('gh', issuer));
      expect(lease?.owner).toMatch(new RegExp(`:${process.pid}:`));
      const error = await rejection(second.withLock('gh', issuer, async () => 1, { timeoutMs: 80 }));
      expect(error.code).toBe('STORAGE_FAILED');
      expect(error.details).toMatchObject({ reason: 'lock-timeout' });
      expect(error.message).toContain(`${lease!.owner} holds it until`);
      release();
      await holder;
      expect(await a.locks.holder(credentialLockName('gh', issuer))).toBeUndefined();
      expect(await second.withLock('gh', issuer, async () => 'mine', { timeoutMs: 5000 })).toBe('mine');
    } finally {
      await close();
    }
  });

  it('an expired lease is taken over, and its late holder does not free the new one', async () => {
    // The first "process" took its lease two minutes ago (its clock says so): long expired.
    const { b, first, second, close } = await twoProcesses(() => new Date(Date.now() - 120_000));
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const stale = first.withLock('gh', issuer, async () => {
        entered();
        await held;
      });
      await inside;
      const name = credentialLockName('gh', issuer);
      await second.withLock(
        'gh',
        issuer,
        async () => {
          const owner = (await b.locks.holder(name))!.owner;
          // The stale holder finishes now; its release must leave this lease alone.
          release();
          await stale;
          expect((await b.locks.holder(name))?.owner).toBe(owner);
        },
        { timeoutMs: 5000 },
      );
      expect(await b.locks.holder(name)).toBeUndefined();
    } finally {
      await close();
    }
  });
});
