import { describe, expect, it } from 'vitest';
import { formatSecretsEnv, parseSecretsEnv } from '../../src/config-files/secrets-env.js';
import { extractSecrets, isSecretName, looksLikeToken } from '../../src/core/config/imports/secret-values.js';

/** What an import counts as a secret, and the entry it writes instead: pure, no files. */
describe('isSecretName', () => {
  it('knows names that hold secrets by their words', () => {
    for (const name of [
      'GITHUB_PERSONAL_ACCESS_TOKEN',
      'BRAVE_API_KEY',
      'apiKey',
      'OPENAI_APIKEY',
      'CLIENT_SECRET',
      'DB_PASSWORD',
      'Authorization',
      'Proxy-Authorization',
      'X-Api-Key',
      'x-auth-token',
      'Cookie',
      'SLACK_BOT_TOKEN',
      'accessToken',
      'token',
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of [
      'PATH',
      'DEBUG',
      'LOG_LEVEL',
      'Content-Type',
      'MONKEY_MODE',
      'TOKENIZER_PATH_X',
      'HOME',
    ])
      expect(isSecretName(name), name).toBe(false);
  });
  it('knows well-known token shapes', () => {
    expect(looksLikeToken(`ghp_${'a'.repeat(36)}`)).toBe(true);
    expect(looksLikeToken(`xoxb-${'1'.repeat(12)}-abc`)).toBe(true);
    expect(looksLikeToken('hello-world')).toBe(false);
  });
});

describe('extractSecrets', () => {
  const token = `ghp_${'x'.repeat(36)}`;
  it('replaces secret env values and keeps the rest (Claude Desktop github entry)', () => {
    const { entry, secrets } = extractSecrets({
      name: 'github',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: token, LOG_LEVEL: 'debug' },
    });
    expect(entry.env).toEqual({
      GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PERSONAL_ACCESS_TOKEN}',
      LOG_LEVEL: 'debug',
    });
    expect(entry.args).toEqual(['-y', '@modelcontextprotocol/server-github']);
    expect(secrets).toEqual([
      { variable: 'GITHUB_PERSONAL_ACCESS_TOKEN', value: token, field: 'env.GITHUB_PERSONAL_ACCESS_TOKEN' },
    ]);
    expect(JSON.stringify(entry)).not.toContain(token);
  });
  it('keeps the auth scheme of a header, prefixes names with the server, and moves token-shaped values', () => {
    const { entry, secrets } = extractSecrets({
      name: 'crm',
      url: 'https://crm.example/mcp',
      headers: { Authorization: 'Bearer abc123', 'X-Team': 'blue', 'X-Other': token },
    });
    expect(entry.headers).toEqual({
      Authorization: 'Bearer ${CRM_AUTHORIZATION}',
      'X-Team': 'blue',
      'X-Other': '${CRM_X_OTHER}',
    });
    expect(secrets.map((s) => [s.variable, s.value])).toEqual([
      ['CRM_AUTHORIZATION', 'abc123'],
      ['CRM_X_OTHER', token],
    ]);
  });
  it('moves flag arguments, URL passwords and secret query parameters', () => {
    const { entry, secrets } = extractSecrets({
      name: 'brave',
      command: 'brave-mcp',
      args: ['--api-key', 'k1', '--token=t2', '--verbose', token],
      url: undefined,
    });
    expect(entry.args).toEqual([
      '--api-key',
      '${BRAVE_API_KEY}',
      '--token=${BRAVE_TOKEN}',
      '--verbose',
      '${BRAVE_TOKEN_2}',
    ]);
    expect(secrets.map((s) => s.value)).toEqual(['k1', 't2', token]);
    const remote = extractSecrets({ name: 'db', url: 'https://me:s3cret@db.example/mcp?api_key=q1&x=1' });
    expect(remote.entry.url).toBe('https://me:${DB_URL_PASSWORD}@db.example/mcp?api_key=${DB_API_KEY}&x=1');
    expect(remote.secrets.map((s) => s.value).sort()).toEqual(['q1', 's3cret']);
  });
  it('leaves references alone, unescapes literal dollars, and numbers a name another value holds', () => {
    const refs = extractSecrets({ name: 'a', command: 'x', env: { API_KEY: '${KEY}', TOKEN: 'p$$w' } });
    expect(refs.entry.env).toEqual({ API_KEY: '${KEY}', TOKEN: '${A_TOKEN}' });
    expect(refs.secrets).toEqual([{ variable: 'A_TOKEN', value: 'p$w', field: 'env.TOKEN' }]);
    const again = extractSecrets(
      { name: 'a', command: 'x', env: { TOKEN: 'other' } },
      (v, value) => v === 'A_TOKEN' && value !== 'p$w',
    );
    expect(again.entry.env).toEqual({ TOKEN: '${A_TOKEN_2}' });
  });
});

describe('secrets.env', () => {
  it('reads back what it writes, quotes included, and skips what it cannot read', () => {
    const values = { A: 'plain', B: 'with "quotes" and = and #', C: 'line\nbreak' };
    expect({ ...parseSecretsEnv(formatSecretsEnv(values)) }).toEqual(values);
    expect({ ...parseSecretsEnv('# c\nX=raw value\nnot a line\nY="broken\n') }).toEqual({ X: 'raw value' });
  });
});
