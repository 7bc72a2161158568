import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL_ENV } from '../../src/app/switchboard.js';
import { openCredentials } from '../../src/cli/credential-store.js';
import type { StoredCredentials } from '../../src/client/auth/credential-store.js';
import { FileCredentialStore } from '../../src/client/auth/file-credential-store.js';
import { openStoreCredentialStore } from '../../src/host/credentials/store-credential-store.js';
import { openStore } from '../../src/storage/open-store.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';

const ISSUER = 'https://as.example.test';
const SAVED: StoredCredentials = {
  tokens: { access_token: 'at-1', token_type: 'Bearer', obtainedAt: 1_767_225_600_000 },
};
const SECRET = Buffer.alloc(32, 5).toString('base64');

let pg: PostgresServer | undefined;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-creds-'));
  pg = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('openCredentials (auth and doctor)', () => {
  it('uses the files of the data dir without a database URL', async () => {
    const dataDir = join(dir, 'files');
    const { credentials, close } = await openCredentials({ env: {}, dataDir });
    await credentials.save('crm', ISSUER, SAVED);
    await close();
    expect(await new FileCredentialStore({ dataDir }).load('crm', ISSUER)).toEqual(SAVED);
  });

  it('uses the PostgreSQL store, encrypted, when SWITCHBOARD_DATABASE_URL names one', async () => {
    const url = await pg!.createDatabase();
    const dataDir = join(dir, 'pg');
    const env = { [DATABASE_URL_ENV]: url, SWITCHBOARD_SECRET_KEY: SECRET };
    const { credentials, close } = await openCredentials({ env, dataDir });
    await credentials.save('crm', ISSUER, SAVED);
    await close();
    // What a gateway instance on the same database (and secret) reads; no file was written.
    expect(existsSync(join(dataDir, 'credentials'))).toBe(false);
    const store = await openStore(url);
    try {
      const shared = await openStoreCredentialStore({ store, dataDir: join(dir, 'other'), env });
      expect(await shared.load('crm', ISSUER)).toEqual(SAVED);
    } finally {
      await store.close();
    }
  });
});
