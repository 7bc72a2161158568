import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialCipher, keyIdOf } from '../../../src/host/credentials/credential-cipher.js';
import { loadSecretKey, parseSecretKey, SECRET_KEY_ENV } from '../../../src/host/credentials/secret-key.js';
import { rejection, thrown } from '../../helpers/rejection.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-secret-key-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
function newDataDir(): string {
  counter += 1;
  return join(root, `data-${counter}`);
}
const posix = process.platform !== 'win32';
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('parseSecretKey', () => {
  const key = randomBytes(32);
  it('reads 32 bytes as hex, base64 or base64url', () => {
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseSecretKey(`  ${key.toString('base64')}\n`)).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
  });
  it('refuses anything else', () => {
    for (const text of [
      '',
      'secret',
      key.toString('hex').slice(2),
      randomBytes(31).toString('base64'),
      `${key.toString('base64')}AAAA`,
    ])
      expect(parseSecretKey(text)).toBeUndefined();
  });
});

describe('loadSecretKey', () => {
  it('takes the key from SWITCHBOARD_SECRET_KEY and creates no key file', async () => {
    const dataDir = newDataDir();
    const bytes = randomBytes(32);
    for (const text of [bytes.toString('hex'), bytes.toString('base64')]) {
      const key = await loadSecretKey({ dataDir, env: { [SECRET_KEY_ENV]: text } });
      expect(Buffer.from(key.bytes)).toEqual(bytes);
      expect(key.source).toBe(SECRET_KEY_ENV);
    }
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
  });

  it('refuses a malformed variable without echoing it', async () => {
    const value = 'hunter2-not-a-real-key';
    const error = await rejection(loadSecretKey({ dataDir: newDataDir(), env: { [SECRET_KEY_ENV]: value } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(SECRET_KEY_ENV);
    expect(error.message).toMatch(/64 hex digits|base64/);
    expect(error.message).not.toContain(value);
  });

  it('creates <dataDir>/secret.key (0600, in a new 0700 dir) on first use, and reuses it', async () => {
    const dataDir = newDataDir();
    const first = await loadSecretKey({ dataDir, env: { [SECRET_KEY_ENV]: '' } });
    const file = join(dataDir, 'secret.key');
    expect(first.source).toContain(file);
    expect(first.bytes).toHaveLength(32);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(Buffer.from(first.bytes));
    if (posix) {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(dataDir)).toBe(0o700);
    }
    const second = await loadSecretKey({ dataDir, env: {} });
    expect(keyIdOf(second.bytes)).toBe(keyIdOf(first.bytes));
    // Another data dir, another key.
    const other = await loadSecretKey({ dataDir: newDataDir(), env: {} });
    expect(keyIdOf(other.bytes)).not.toBe(keyIdOf(first.bytes));
  });

  it('gives every concurrent first user the same key', async () => {
    const dataDir = newDataDir();
    const keys = await Promise.all(Array.from({ length: 6 }, () => loadSecretKey({ dataDir, env: {} })));
    expect(new Set(keys.map((k) => keyIdOf(k.bytes))).size).toBe(1);
  });

  it.skipIf(!posix)('tightens a key file others could read', async () => {
    const dataDir = newDataDir();
    await loadSecretKey({ dataDir, env: {} });
    chmodSync(join(dataDir, 'secret.key'), 0o644);
    await loadSecretKey({ dataDir, env: {} });
    expect(modeOf(join(dataDir, 'secret.key'))).toBe(0o600);
  });

  it('reports a damaged key file by name, without its content', async () => {
    const dataDir = newDataDir();
    await loadSecretKey({ dataDir, env: {} });
    const file = join(dataDir, 'secret.key');
    writeFileSync(file, 'c2VjcmV0LWJ1dC10b28tc2hvcnQ=');
    const error = await rejection(loadSecretKey({ dataDir, env: {} }));
    expect(error.code).toBe('STORAGE_FAILED');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/backup/);
    expect(error.message).not.toContain('c2VjcmV0');
  });
});

describe('CredentialCipher', () => {
  it('refuses a key that is not 32 bytes', () => {
    expect(thrown(() => new CredentialCipher({ bytes: randomBytes(16), source: 'test' })).code).toBe(
      'CONFIG_INVALID',
    );
  });

  it('seals with a fresh IV each time and opens only for the same row', () => {
    const cipher = new CredentialCipher({ bytes: randomBytes(32), source: 'test' });
    const a = cipher.seal('secret text', ['gh', 'https://as.example']);
    const b = cipher.seal('secret text', ['gh', 'https://as.example']);
    expect(a).not.toBe(b);
    expect(a.startsWith(`sbc1:${cipher.keyId}:`)).toBe(true);
    expect(cipher.open(a, ['gh', 'https://as.example'], 'x')).toBe('secret text');
    expect(cipher.open(b, ['gh', 'https://as.example'], 'x')).toBe('secret text');
    // The row is bound unambiguously: shifting text between the parts does not match.
    expect(thrown(() => cipher.open(a, ['gh', 'https://as.exampl'], 'x')).code).toBe('STORAGE_FAILED');
    expect(thrown(() => cipher.open(a, ['g', 'hhttps://as.example'], 'x')).code).toBe('STORAGE_FAILED');
  });
});
