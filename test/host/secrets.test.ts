import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../src/client/recording/redact.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { secretsOf } from '../../src/host/secrets.js';

/**
 * `secretsOf`: what a log line or a recording must not keep of a server's config. Headers and
 * their bearer credential, env values, the secrets of `auth` — expanded from the environment —
 * and never the plain words of the config around them.
 */
const env = { GH_TOKEN: 'ghp_abcdefghijklmnop', CLIENT_SECRET: 'cs-0987654321', PLAIN: 'x' };

describe('secretsOf', () => {
  it('takes header values whole and the credential of an Authorization header alone', () => {
    const config = normalizeServerEntry({
      name: 'remote',
      url: 'https://mcp.example.com/mcp',
      headers: {
        Authorization: 'Bearer ${GH_TOKEN}',
        'X-Api-Key': 'k-live-55555555',
        Cookie: 'sid=abcdef123',
      },
    });
    const secrets = secretsOf(config, env);
    expect(secrets).toContain('Bearer ghp_abcdefghijklmnop');
    expect(secrets).toContain('ghp_abcdefghijklmnop');
    expect(secrets).toContain('k-live-55555555');
    expect(secrets).toContain('sid=abcdef123');
    // A server that echoes the token alone, or the whole header, has it redacted either way.
    const echoed = redact(
      { text: 'token ghp_abcdefghijklmnop seen in "Bearer ghp_abcdefghijklmnop"' },
      secrets,
    );
    expect(echoed.text).toBe(`token ${REDACTED} seen in "${REDACTED}"`);
  });

  it('takes the credential of other schemes too (Basic, token)', () => {
    const config = normalizeServerEntry({
      name: 'remote',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Basic dXNlcjpwYXNzd29yZA==', 'X-Other': 'token ${GH_TOKEN}' },
    });
    const secrets = secretsOf(config, env);
    expect(secrets).toContain('dXNlcjpwYXNzd29yZA==');
    expect(secrets).toContain('ghp_abcdefghijklmnop');
  });

  it('takes an api_key and the secrets of OAuth, not the words of auth', () => {
    const bearer = secretsOf(
      normalizeServerEntry({ name: 'keyed', url: 'https://mcp.example.com/mcp', api_key: '${GH_TOKEN}' }),
      env,
    );
    expect(bearer).toEqual(['ghp_abcdefghijklmnop']);
    const oauth = secretsOf(
      normalizeServerEntry({
        name: 'oauth',
        url: 'https://mcp.example.com/mcp',
        auth: {
          type: 'oauth',
          grant: 'client_credentials',
          clientId: 'my-client',
          clientSecret: '${CLIENT_SECRET}',
        },
      }),
      env,
    );
    expect(oauth).toEqual(['cs-0987654321']);
    // "bearer", "oauth", "client_credentials" are config words: redacting them would blank
    // every "bearer" a server says.
    const words = redact({ text: 'a bearer of client_credentials news' }, [...bearer, ...oauth]);
    expect(words.text).toBe('a bearer of client_credentials news');
  });

  it('takes env values of a local server, skipping unset variables', () => {
    const config = normalizeServerEntry({
      name: 'local',
      command: 'node',
      env: { TOKEN: '${GH_TOKEN}', MISSING: '${NOT_SET_ANYWHERE}', MODE: 'production' },
    });
    const secrets = secretsOf(config, env);
    expect(secrets).toContain('ghp_abcdefghijklmnop');
    expect(secrets).toContain('production');
    expect(secrets.some((s) => s.includes('NOT_SET_ANYWHERE'))).toBe(false);
  });
});
