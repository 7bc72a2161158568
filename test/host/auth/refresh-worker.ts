/**
 * A second process for the refresh race: `refresh-worker.ts <dataDir> <serverUrl>` builds an
 * OAuth session on the file credential store, prints `ready`, waits for a line on stdin
 * (so both workers start together), asks for the access token (a refresh, since the stored
 * one is about to expire) and prints it.
 */
import { once } from 'node:events';
import { FileCredentialStore } from '../../../src/client/auth/file-credential-store.js';
import { createOAuthSession } from '../../../src/client/auth/http-auth.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';

const [dataDir, url] = process.argv.slice(2);
const config = normalizeServerEntry({
  name: 'protected',
  url: url!,
  auth: { type: 'oauth', scopes: ['mcp:read'] },
});
const session = createOAuthSession(config, {
  env: {},
  credentials: new FileCredentialStore({ dataDir: dataDir! }),
});
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdout.write(`token ${(await session.accessToken()) ?? 'none'}\n`);
process.exit(0);
