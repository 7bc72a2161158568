import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JWT_BEARER_GRANT, machineGrantRequest } from '../../../src/client/auth/grants.js';
import { DEFAULT_REDIRECT_URI, resolveOAuthSettings } from '../../../src/client/auth/oauth-settings.js';
import { rejection, thrown } from '../../helpers/rejection.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('OAuth settings', () => {
  it('expands variables at connect time and applies defaults', () => {
    const s = resolveOAuthSettings(
      'gh',
      { type: 'oauth', grant: 'authorization_code', clientId: '${ID}', scopes: ['${SCOPE}', 'b'] },
      { ID: 'client-1', SCOPE: 'a' },
    );
    expect(s).toMatchObject({ clientId: 'client-1', scopes: ['a', 'b'], redirectUri: DEFAULT_REDIRECT_URI });
    expect(s.signingAlgorithm).toBe('RS256');
    const e = thrown(() =>
      resolveOAuthSettings('gh', { type: 'oauth', grant: 'authorization_code', clientSecret: '${NOPE}' }, {}),
    );
    expect(e).toMatchObject({
      code: 'ENV_VAR_MISSING',
      details: { field: 'auth.clientSecret', variable: 'NOPE' },
    });
  });

  it('reads a workload token file at every token request, and says which file it cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-oauth-'));
    dirs.push(dir);
    const file = join(dir, 'token');
    writeFileSync(file, 'jwt-1\n');
    const s = resolveOAuthSettings('w', { type: 'oauth', grant: 'jwt_bearer', assertionFile: file }, {});
    const target = { issuer: 'https://as.example', fetch };
    const first = await machineGrantRequest(s, target, 'read');
    expect(Object.fromEntries(first ?? [])).toEqual({
      grant_type: JWT_BEARER_GRANT,
      assertion: 'jwt-1',
      scope: 'read',
    });
    writeFileSync(file, 'jwt-2');
    expect((await machineGrantRequest(s, target, undefined))?.get('assertion')).toBe('jwt-2');
    const missing = resolveOAuthSettings(
      'w',
      { type: 'oauth', grant: 'jwt_bearer', assertionFile: join(dir, 'x') },
      {},
    );
    const e = await rejection(machineGrantRequest(missing, target, undefined));
    expect(e).toMatchObject({ code: 'CONFIG_INVALID', details: { field: 'auth.assertionFile' } });
  });

  it('uses private_key_jwt when a private key is given, and nothing for the authorization code grant', async () => {
    const s = resolveOAuthSettings(
      'm',
      { type: 'oauth', grant: 'client_credentials', clientId: 'c', privateKey: 'PEM' },
      {},
    );
    expect(s.tokenEndpointAuthMethod).toBe('private_key_jwt');
    expect(
      Object.fromEntries((await machineGrantRequest(s, { issuer: 'i', fetch }, undefined)) ?? []),
    ).toEqual({
      grant_type: 'client_credentials',
    });
    const code = resolveOAuthSettings('m', { type: 'oauth', grant: 'authorization_code' }, {});
    expect(await machineGrantRequest(code, { issuer: 'i', fetch }, 'x')).toBeUndefined();
  });
});
