import { DATABASE_URL_ENV } from '../app/switchboard.js';
import type { CredentialStore } from '../client/auth/credential-store.js';
import { FileCredentialStore } from '../client/auth/file-credential-store.js';
import { openStoreCredentialStore } from '../host/credentials/store-credential-store.js';
import type { CliContext } from './cli-context.js';
import { openStoreIfAny } from './configured-servers.js';

/** The credential store a one-shot verb uses, and how to let go of it. */
export interface OpenedCredentials {
  readonly credentials: CredentialStore;
  close(): Promise<void>;
}

/**
 * Where OAuth credentials are for this CLI invocation — the same place a running Switchboard
 * with the same settings looks: in the PostgreSQL store, encrypted, when
 * `SWITCHBOARD_DATABASE_URL` names one (so `auth` logs every gateway instance in, and `doctor`
 * sees their login); else the files under `<dataDir>/credentials`.
 */
export async function openCredentials(ctx: Pick<CliContext, 'env' | 'dataDir'>): Promise<OpenedCredentials> {
  if (!ctx.env[DATABASE_URL_ENV]) {
    return { credentials: new FileCredentialStore({ dataDir: ctx.dataDir }), close: async () => undefined };
  }
  const store = await openStoreIfAny(ctx);
  if (!store) throw new Error('A PostgreSQL store always opens.');
  try {
    const credentials = await openStoreCredentialStore({ store, dataDir: ctx.dataDir, env: ctx.env });
    return { credentials, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
