import { describe, expect, it } from 'vitest';
import {
  isSecretField,
  MASKED,
  maskArguments,
  maskSecretValues,
  previewArguments,
} from '../../src/policy/masking.js';

// Credential-shaped test values are assembled at run time so that no scanner mistakes this
// file for a leak; none of them is a real credential.
const fake = {
  github: `ghp_${'A1b2C3d4E5'.repeat(4)}`,
  githubPat: `github_pat_${'11AAAAAAA0'.repeat(4)}`,
  openai: `sk-${'proj-'}${'x1Y2z3'.repeat(6)}`,
  stripe: `${'sk'}_${'test'}_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
  slack: `${'xoxb'}-${'123456789012'}-${'abcdefABCDEF1234'}`,
  aws: `${'AKIA'}${'IOSFODNN7EXAMPLE'}`,
  google: `${'AIza'}${'SyA-1234567890abcdefghijklmnopqrstu'}`,
  jwt: `${'eyJhbGciOiJIUzI1NiJ9'}.${'eyJzdWIiOiIxMjM0NTY3ODkwIn0'}.${'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'}`,
  bearer: `${'Bearer'} ${'abc123def456ghi789jkl'}`,
  pem: `-----BEGIN ${'RSA PRIVATE'} KEY-----\nMIIEowIBAAKCAQEA\n-----END ${'RSA PRIVATE'} KEY-----`,
};

describe('isSecretField', () => {
  it.each([
    'password',
    'Password',
    'db_password',
    'passphrase',
    'client_secret',
    'clientSecret',
    'apiToken',
    'access_token',
    'GITHUB_TOKEN',
    'api_key',
    'apiKey',
    'x-api-key',
    'private_key',
    'aws_access_key_id',
    'credentials',
    'Authorization',
    'cookie',
    'passwd',
  ])('flags %s by its name', (name) => {
    expect(isSecretField(name)).toBe(true);
    expect(isSecretField(name, { type: 'string' })).toBe(true);
  });

  it.each([
    'path',
    'query',
    'author',
    'auth_mode',
    'key',
    'monkey',
    'keyword',
    'pinned',
    'pwd',
    'description',
  ])('leaves %s alone', (name) => {
    expect(isSecretField(name)).toBe(false);
    expect(isSecretField(name, { type: 'string' })).toBe(false);
  });

  it('flags format: password and writeOnly whatever the name', () => {
    expect(isSecretField('pin', { type: 'string', format: 'password' })).toBe(true);
    expect(isSecretField('code', { type: 'integer', writeOnly: true })).toBe(true);
    expect(
      isSecretField('value', { anyOf: [{ type: 'string', format: 'password' }, { type: 'null' }] }),
    ).toBe(true);
    expect(isSecretField('value', { type: 'string', writeOnly: false })).toBe(false);
  });

  it('does not flag a count or flag that is only named like a secret', () => {
    expect(isSecretField('max_tokens', { type: 'integer' })).toBe(false);
    expect(isSecretField('token_count', { type: ['integer', 'null'] })).toBe(false);
    expect(isSecretField('use_password', { type: 'boolean' })).toBe(false);
    expect(isSecretField('tokens', { type: 'array', items: { type: 'string' } })).toBe(true);
    expect(isSecretField('token', { type: ['string', 'null'] })).toBe(true);
  });
});

describe('maskSecretValues', () => {
  it.each(Object.entries(fake))('masks a %s credential inside prose', (_kind, secret) => {
    const masked = maskSecretValues(`before ${secret} after`);
    expect(masked).not.toContain(secret);
    expect(masked).toContain(MASKED);
    expect(masked.startsWith('before ')).toBe(true);
    expect(masked.endsWith(' after')).toBe(true);
  });

  it('keeps the Bearer scheme and the URL user, masking only the secret part', () => {
    expect(maskSecretValues(fake.bearer)).toBe(`Bearer ${MASKED}`);
    expect(maskSecretValues('postgres://app:s3cr3t-pw@db.internal:5432/main')).toBe(
      `postgres://app:${MASKED}@db.internal:5432/main`,
    );
  });

  it('masks a private key cut off before its END line', () => {
    const cut = fake.pem.slice(0, 45);
    expect(maskSecretValues(`key: ${cut}`)).toBe(`key: ${MASKED}`);
  });

  it.each([
    'The bearer of this letter is a friend.',
    'Bearer instruments and bearer bonds',
    'pip install scikit-learn; sk-learn is not a package',
    'ask-questions-early-and-often-please',
    'AKIA is a prefix, AKIA123 is too short',
    'eyJ is how base64 JSON starts',
    'https://example.com/a:b@c and git@github.com:owner/repo.git',
    'ssh://git@github.com:22/owner/repo',
    'max_tokens=4096 temperature=0.2',
    'ghp_short',
    'The quick brown fox jumps over the lazy dog 1234567890',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(maskSecretValues(text)).toBe(text);
  });
});

describe('maskArguments', () => {
  it('masks by name, by schema and by value, deeply, and copies', () => {
    const args = {
      path: '/tmp/notes.md',
      password: 'hunter2',
      max_tokens: 256,
      options: { client_secret: 'abc', verbose: true, header: fake.bearer },
      items: [{ name: 'a', apiKey: 'k-1' }, { name: 'b' }],
      pin: '1234',
      note: `use ${fake.github} for this`,
    };
    const schema = {
      type: 'object',
      properties: { pin: { type: 'string', format: 'password' } },
    };
    const masked = maskArguments(args, schema);
    expect(masked).toEqual({
      path: '/tmp/notes.md',
      password: MASKED,
      max_tokens: 256,
      options: { client_secret: MASKED, verbose: true, header: `Bearer ${MASKED}` },
      items: [{ name: 'a', apiKey: MASKED }, { name: 'b' }],
      pin: MASKED,
      note: `use ${MASKED} for this`,
    });
    expect(args.password).toBe('hunter2');
    expect(masked.options).not.toBe(args.options);
  });

  it('follows properties, additionalProperties, items and prefixItems of the schema', () => {
    const schema = {
      type: 'object',
      properties: {
        accounts: {
          type: 'array',
          items: { type: 'object', properties: { code: { type: 'string', writeOnly: true } } },
        },
        env: { type: 'object', additionalProperties: { type: 'string', format: 'password' } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string', format: 'password' }] },
      },
    };
    const masked = maskArguments(
      { accounts: [{ code: 'x', user: 'u' }], env: { HOME_DIR: 'v' }, pair: ['left', 'right'] },
      schema,
    );
    expect(masked).toEqual({
      accounts: [{ code: MASKED, user: 'u' }],
      env: { HOME_DIR: MASKED },
      pair: ['left', MASKED],
    });
  });

  it('masks a whole object or list under a secret name, keeps numbers, booleans and nulls', () => {
    expect(
      maskArguments({ secrets: { a: 'x' }, tokens: ['t1'], token: null, max_tokens: 5, use_token: true }),
    ).toEqual({ secrets: MASKED, tokens: MASKED, token: null, max_tokens: 5, use_token: true });
  });

  it('cuts nesting past its depth bound and keeps __proto__ keys as plain data', () => {
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 50; i++) deep = { next: deep };
    const text = JSON.stringify(maskArguments(deep));
    expect(text).toContain('"…"');
    expect(text).not.toContain('leaf');

    const parsed = JSON.parse('{"__proto__": {"password": "p"}, "a": 1}') as Record<string, unknown>;
    const masked = maskArguments(parsed);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe(`{"__proto__":{"password":"${MASKED}"},"a":1}`);
  });
});

describe('previewArguments', () => {
  it('is compact one-line JSON of the masked arguments', () => {
    expect(previewArguments({ title: 'Hi\nthere', token: 'abc' })).toBe(
      `{"title":"Hi\\nthere","token":"${MASKED}"}`,
    );
    expect(previewArguments(undefined)).toBe('{}');
  });

  it('cuts at maxChars with an ellipsis and the full size', () => {
    const args = { body: 'x'.repeat(2000) };
    const full = JSON.stringify(args).length;
    const preview = previewArguments(args, undefined, { maxChars: 100 });
    expect(preview).toBe(`${JSON.stringify(args).slice(0, 100)}… (${full} chars)`);
    expect(previewArguments(args).startsWith(JSON.stringify(args).slice(0, 500))).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    const preview = previewArguments({ s: '😀😀😀😀' }, undefined, { maxChars: 7 });
    expect(preview.startsWith('{"s":"… (')).toBe(true);
  });
});
